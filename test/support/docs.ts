import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The user documentation as data: README.md and every page of docs/, their
// fenced blocks, tables, headings and links, read the way GitHub renders them,
// so tests can hold each against the code it describes.

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** README.md and docs/*.md, as paths relative to the repository. */
export function docPages(): string[] {
  const pages = readdirSync(`${REPO_ROOT}docs`)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...pages];
}

export function readPage(page: string): string {
  return readFileSync(`${REPO_ROOT}${page}`, 'utf8');
}

export interface FencedBlock {
  /** The info string's first word: yaml, sh, … ('' when none). */
  readonly lang: string;
  /** The whole info string: `yaml file=demo.yaml invalid` ('' when none). */
  readonly info: string;
  readonly body: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
}

/** The fenced code blocks (``` fences, indented ones included), in order. */
export function fencedBlocks(text: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const lines = text.split('\n');
  let open: { lang: string; info: string; line: number; indent: string; body: string[] } | undefined;
  for (const [index, line] of lines.entries()) {
    const fence = /^(\s*)```(\S*)(.*)$/.exec(line);
    if (open === undefined) {
      if (fence !== null) {
        const lang = fence[2] ?? '';
        open = { lang, info: `${lang}${fence[3] ?? ''}`.trim(), line: index + 1, indent: fence[1] ?? '', body: [] };
      }
    } else if (fence !== null && line.trim() === '```') {
      blocks.push({ lang: open.lang, info: open.info, body: open.body.join('\n'), line: open.line });
      open = undefined;
    } else {
      open.body.push(line.startsWith(open.indent) ? line.slice(open.indent.length) : line);
    }
  }
  return blocks;
}

/** The words of a fenced block's info string after its language: `yaml file=demo.yaml` → { file: 'demo.yaml' }; a bare word maps to ''. */
export function blockAttributes(block: FencedBlock): Record<string, string> {
  const words = block.info
    .split(/\s+/)
    .slice(1)
    .filter((word) => word !== '');
  return Object.fromEntries(words.map((word) => [word.split('=')[0]!, word.includes('=') ? word.slice(word.indexOf('=') + 1) : '']));
}

export interface ShownCommand {
  /** 1-based line of the `$ ` line in the page. */
  readonly line: number;
  /** The command line, without its `$ `. */
  readonly command: string;
  /** The lines shown below it, up to the next command; `…` stands for text left out. */
  readonly shown: readonly string[];
}

/**
 * The commands of a ```console block, the convention of docs/ for what
 * sidecar-init prints: a `$ ` line is a command as a user types it, the lines
 * below it are what it prints, each a line of its output or a part of one
 * (the message of a JSON log line, say), in the order printed.
 */
export function consoleCommands(block: FencedBlock): ShownCommand[] {
  const commands: { line: number; command: string; shown: string[] }[] = [];
  for (const [index, line] of block.body.split('\n').entries()) {
    if (line.startsWith('$ ')) commands.push({ line: block.line + 1 + index, command: line.slice(2), shown: [] });
    else if (commands.length === 0)
      throw new Error(`line ${block.line + 1 + index}: a console block starts with the $ line of its command`);
    else if (line.trim() !== '') commands.at(-1)!.shown.push(line);
  }
  return commands;
}

/** The words of a command line as a POSIX shell splits them: 'single' and "double" quotes, no expansion (none is needed in docs/). */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  const pattern = /\s*(?:'([^']*)'|"((?:[^"\\]|\\.)*)"|([^\s'"]+))/gy;
  let word: string | undefined;
  let end = 0;
  for (let match = pattern.exec(command); match !== null && match[0] !== ''; match = pattern.exec(command)) {
    // Quoted and bare parts that touch make one word: a='b c'd.
    const touching = word !== undefined && !/^\s/.test(match[0]);
    const part = match[1] ?? match[2]?.replace(/\\(.)/g, '$1') ?? match[3] ?? '';
    if (touching) word += part;
    else {
      if (word !== undefined) words.push(word);
      word = part;
    }
    end = pattern.lastIndex;
  }
  if (command.slice(end).trim() !== '') throw new Error(`${command}: an unclosed quote at ${command.slice(end).trim()}`);
  if (word !== undefined) words.push(word);
  return words;
}

/** The text with fenced blocks blanked out (their lines kept empty, so line numbers stay). */
export function withoutFencedBlocks(text: string): string {
  let inside = false;
  return text
    .split('\n')
    .map((line) => {
      if (/^\s*```/.test(line)) {
        inside = !inside;
        return '';
      }
      return inside ? '' : line;
    })
    .join('\n');
}

/** A table row's cells, split at the pipes that are not escaped (`a\|b` is one cell), trimmed. */
export function tableCells(line: string): string[] {
  const cells = line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/);
  return cells.map((cell) => cell.trim());
}

export interface Table {
  readonly header: readonly string[];
  readonly rows: readonly (readonly string[])[];
  readonly line: number;
}

/** Every table of the page (outside code blocks): a header row, a delimiter row, then rows up to the first line that is not one. */
export function tables(text: string): Table[] {
  const lines = withoutFencedBlocks(text).split('\n');
  const found: Table[] = [];
  for (let index = 0; index + 1 < lines.length; index++) {
    if (!lines[index]!.startsWith('|') || !/^\|(\s*:?-+:?\s*\|)+\s*$/.test(lines[index + 1]!)) continue;
    const rows: string[][] = [];
    let next = index + 2;
    while (next < lines.length && lines[next]!.startsWith('|')) rows.push(tableCells(lines[next++]!));
    found.push({ header: tableCells(lines[index]!), rows, line: index + 1 });
    index = next - 1;
  }
  return found;
}

/** The one table of the page with this header; throws when there is none or more than one. */
export function tableWithHeader(page: string, header: readonly string[]): Table {
  const matching = tables(readPage(page)).filter((table) => table.header.join('|') === header.join('|'));
  if (matching.length !== 1) throw new Error(`${page}: ${matching.length} tables with the header | ${header.join(' | ')} |, not one`);
  return matching[0]!;
}

/** The text of a cell without its code spans' backticks and with `\|` unescaped. */
export function plainCell(cell: string): string {
  return cell.replaceAll('`', '').replaceAll('\\|', '|');
}

/** The words in code spans of a cell: `grace`, `logLevel` → ['grace', 'logLevel']. */
export function codeSpans(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
}

/**
 * The anchor GitHub gives a heading: its text without markup, lower-cased,
 * every character that is not a letter, a mark, a digit, a connector (`_`), a
 * hyphen or a space dropped, spaces turned into hyphens; a repeated anchor
 * gets -1, -2, … in order.
 */
export function headingAnchors(text: string): string[] {
  const seen = new Map<string, number>();
  const anchors: string[] = [];
  for (const line of withoutFencedBlocks(text).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading === null) continue;
    const slug = (heading[1] ?? '')
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .replaceAll('`', '')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replaceAll(' ', '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.push(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const match of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.push(match[1]!);
  return anchors;
}

export interface Link {
  readonly target: string;
  readonly line: number;
}

/** The inline links and images of the page, outside code blocks and code spans. */
export function links(text: string): Link[] {
  const found: Link[] = [];
  for (const [index, line] of withoutFencedBlocks(text).split('\n').entries()) {
    const prose = line.replace(/`[^`]*`/g, '');
    for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) found.push({ target: match[1]!, line: index + 1 });
  }
  return found;
}
