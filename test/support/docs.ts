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
  readonly body: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
}

/** The fenced code blocks (``` fences, indented ones included), in order. */
export function fencedBlocks(text: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const lines = text.split('\n');
  let open: { lang: string; line: number; indent: string; body: string[] } | undefined;
  for (const [index, line] of lines.entries()) {
    const fence = /^(\s*)```(\S*)/.exec(line);
    if (open === undefined) {
      if (fence !== null) open = { lang: fence[2] ?? '', line: index + 1, indent: fence[1] ?? '', body: [] };
    } else if (fence !== null && line.trim() === '```') {
      blocks.push({ lang: open.lang, body: open.body.join('\n'), line: open.line });
      open = undefined;
    } else {
      open.body.push(line.startsWith(open.indent) ? line.slice(open.indent.length) : line);
    }
  }
  return blocks;
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
