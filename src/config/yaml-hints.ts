import type { YAMLError } from 'yaml';

// The YAML parser's words name the rule a line broke ("Sequence item without
// - indicator"), not the slip that broke it. Nearly every such error in a
// hand-written config is one of three: a line indented a space off, a tab, or
// a list item without its "- ". So each parser error gets a plain sentence
// for its likely cause after the parser's own words, which stay for a search.

const INDENTATION =
  'likely an indentation slip: the keys of one mapping, and the "- " of one list, start at the same column, indented with spaces';

/** Reported at the key above the slip: a line one space deeper than its siblings reads as part of that key. */
const DEEPER_LINE = `${INDENTATION} (check this line and the next), or a key without a space after its colon (name:app)`;

/** A line indented less than the keys of the item above but more than its list: a second item without "- ", or a key a space off. */
const MISSING_DASH = 'a list item begins with "- "; if this line belongs to the item above, indent it to the column of that item\'s keys';

/**
 * The usual slip behind an error, by its code and, where one code covers
 * several rules (an unclosed [ is BAD_INDENT too, and says so itself), its words.
 */
function hintFor({ code, message }: Pick<YAMLError, 'code' | 'message'>): string | undefined {
  switch (code) {
    case 'TAB_AS_INDENT':
      return 'replace the tab that indents this line with spaces: YAML indents with spaces only';
    case 'BAD_INDENT':
      return message.includes('must start at the same column') ? INDENTATION : undefined;
    case 'BLOCK_AS_IMPLICIT_KEY':
    case 'MULTILINE_IMPLICIT_KEY':
      return DEEPER_LINE;
    case 'MISSING_CHAR':
      return message.includes('without - indicator') ? MISSING_DASH : undefined;
    default:
      return undefined;
  }
}

/**
 * Each error's message, the parser's words then the likely cause in plain
 * words. One slip often breaks two or three rules on its line, so the cause
 * is told once a line, after the first of them.
 */
export function explainYamlErrors(errors: readonly Pick<YAMLError, 'code' | 'message'>[], lineOf: (index: number) => number): string[] {
  const explained = new Set<number>();
  return errors.map((error, index) => {
    const hint = hintFor(error);
    const line = lineOf(index);
    if (hint === undefined || explained.has(line)) return error.message;
    explained.add(line);
    return `${error.message}; ${hint}`;
  });
}
