import { symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blockAttributes, consoleCommands, docPages, fencedBlocks, REPO_ROOT, readPage, shellWords } from './support/docs.ts';
import { useHarness } from './support/harness.ts';
import { runSupervisor } from './support/supervisor.ts';
import { useTempDirs } from './support/temp-dirs.ts';

// What docs/ and README quote sidecar-init as printing, against what it prints.
// The convention: every fenced block says what it is. A ```console block is
// program output: each `$ sidecar-init …` line is run as written (in a fresh
// folder holding the page's ```yaml file=NAME blocks and a link to examples/),
// and every line shown below it must be a line of its output, or a part of one
// (the `msg` of a JSON log line, say), in the order shown; `…` stands for text
// left out. `console holds=PORT` runs its commands while the test listens on
// PORT (a port another container of the pod uses). A ```text block is not
// something one command prints (a diagram, a synopsis, a log of a whole pod's
// life), and is not run.

const tempDir = useTempDirs('docs-output');
const { track, expectNothingLeft } = useHarness();

/** Languages whose blocks are not program output; each is checked elsewhere or is no output at all. */
const NOT_OUTPUT = ['yaml', 'sh', 'json', 'dockerfile', 'mermaid', 'text'];

const pages = docPages().map((page) => ({ page, blocks: fencedBlocks(readPage(page)) }));
const commands = pages.flatMap(({ page, blocks }) =>
  blocks
    .filter((block) => block.lang === 'console')
    .flatMap((block) =>
      consoleCommands(block).map((command) => ({ at: `${page}:${command.line}`, page, holds: blockAttributes(block).holds, ...command })),
    ),
);

describe('fenced blocks of docs/', () => {
  it.each(pages)('$page says what each of its blocks is', ({ page, blocks }) => {
    const unmarked = blocks.filter((block) => block.lang !== 'console' && !NOT_OUTPUT.includes(block.lang));
    expect(
      unmarked.map((block) => `${page}:${block.line}`),
      'mark program output ```console (with its $ command) and anything else ```text',
    ).toEqual([]);
  });

  it('quote output in troubleshooting.md, configuration.md and lifecycle.md', () => {
    const quoted = new Set(commands.map((command) => command.page));
    for (const page of ['docs/troubleshooting.md', 'docs/configuration.md', 'docs/lifecycle.md']) expect(quoted).toContain(page);
  });
});

describe.each(commands)('$at', ({ page, holds, command, shown }) => {
  it(`$ ${command} prints what the page shows`, async () => {
    const words = shellWords(command);
    const assignments = words.slice(
      0,
      words.findIndex((word) => !/^[A-Z_][A-Z0-9_]*=/.test(word)),
    );
    const [program, ...args] = words.slice(assignments.length);
    expect(program, 'a console block runs sidecar-init').toBe('sidecar-init');

    const folder = tempDir();
    symlinkSync(join(REPO_ROOT, 'examples'), join(folder, 'examples'));
    for (const block of pages.find((candidate) => candidate.page === page)?.blocks ?? []) {
      const file = blockAttributes(block).file;
      if (file !== undefined) writeFileSync(join(folder, file), `${block.body}\n`);
    }
    const env = Object.fromEntries(assignments.map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]));
    const held = holds === undefined ? undefined : await holdPort(Number(holds));
    const run = track(await runSupervisor(args, { env, cwd: folder }));
    held?.close(() => {});
    await expectNothingLeft(run);

    const printed = `${run.stdout()}\n${run.stderr()}`.split('\n').map(lineTexts);
    let next = 0;
    for (const line of shown) {
      if (line.trim() === '…') continue;
      const pattern = shownPattern(line);
      const found = printed.findIndex((texts, index) => index >= next && texts.some((text) => pattern.test(text)));
      expect(
        found,
        `${line}\nnot printed (after what was shown before it); sidecar-init printed:\n${run.stdout()}${run.stderr()}`,
      ).not.toBe(-1);
      next = found + 1;
    }
  });
});

/** Listens on port at every address, as another container of the pod would; taken already by someone else, it is taken all the same. */
async function holdPort(port: number): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => {
    server.once('error', () => resolve());
    server.listen(port, resolve);
  });
  return server;
}

/** A printed line, and the message of a JSON log line, as it reads unescaped. */
function lineTexts(line: string): string[] {
  if (!line.startsWith('{')) return [line];
  try {
    const { msg } = JSON.parse(line) as { msg?: unknown };
    return typeof msg === 'string' ? [line, msg] : [line];
  } catch {
    return [line];
  }
}

/** A shown line as a pattern: its text anywhere in a printed line, `…` any text. */
function shownPattern(line: string): RegExp {
  const parts = line
    .trim()
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(parts.join('.*'));
}
