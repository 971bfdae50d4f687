import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The headline figures of a run, each beside the reference measured in the
// same run and the goal it is held to: printed at the end, and as the
// Markdown table README.md's "Size and speed" section shows
// (`npm run bench -- --markdown`; `--readme` writes it into README.md).

export interface Figure {
  readonly figure: string;
  /** sidecar-init's value, with its unit. */
  readonly value: string;
  /** What it is compared with, with its value. */
  readonly reference: string;
  readonly ratio: number;
  /** The goal, as written in the table ('≤ 2×'). */
  readonly goal: string;
  /** Undefined for a figure with no goal, shown for what it is (the executable's size). */
  readonly met: boolean | undefined;
}

/** A figure whose goal is a ratio to its reference. */
export function ratioFigure(figure: string, value: string, reference: string, ratio: number, goal: number, of: string): Figure {
  return { figure, value, reference, ratio, goal: `≤ ${goal}× ${of}`, met: ratio <= goal };
}

/** A figure shown beside its reference, with no goal to meet. */
export function plainFigure(figure: string, value: string, reference: string, ratio: number): Figure {
  return { figure, value, reference, ratio, goal: 'none', met: undefined };
}

const verdictOf = (entry: Figure, notMet: string): string =>
  entry.met === undefined ? entry.goal : `${entry.goal} (${entry.met ? 'met' : notMet})`;

const figures: Figure[] = [];

export function recordFigure(figure: Figure): void {
  figures.push(figure);
}

export function summaryMarkdown(machine: string): string {
  const rows = figures.map(
    (entry) => `| ${entry.figure} | ${entry.value} | ${entry.reference} | ${entry.ratio.toFixed(2)}× | ${verdictOf(entry, 'not met')} |`,
  );
  return [
    `Measured by \`npm run bench\` on ${machine}; medians, all in one run.`,
    '',
    '| figure | sidecar-init | reference (same run) | ratio | goal |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}

export function printSummary(machine: string): void {
  console.log('\nsummary');
  for (const entry of figures) {
    console.log(
      `  ${entry.figure}: ${entry.value} vs ${entry.reference}: x${entry.ratio.toFixed(2)} (goal ${verdictOf(entry, 'NOT MET')})`,
    );
  }
  if (process.argv.includes('--markdown')) console.log(`\n${summaryMarkdown(machine)}`);
}

const README = fileURLToPath(new URL('../README.md', import.meta.url));
const START_MARK = '<!-- bench:summary:start (written by npm run bench -- --readme) -->';
const END_MARK = '<!-- bench:summary:end -->';

/** Replaces the table between README.md's markers with this run's. */
export function writeSummaryIntoReadme(machine: string): void {
  const text = readFileSync(README, 'utf8');
  const start = text.indexOf(START_MARK);
  const end = text.indexOf(END_MARK);
  if (start < 0 || end < start) throw new Error(`README.md has no ${START_MARK} … ${END_MARK} block to write the table into`);
  writeFileSync(README, `${text.slice(0, start + START_MARK.length)}\n${summaryMarkdown(machine)}${text.slice(end)}`);
}
