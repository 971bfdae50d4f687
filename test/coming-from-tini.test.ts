import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixture, fixtureArgv, shellJoin } from './support/commands.ts';
import { codeSpans, plainCell, REPO_ROOT, tableWithHeader } from './support/docs.ts';
import { useHarness } from './support/harness.ts';
import { parentOf } from './support/proc-state.ts';
import { runSupervisor, startSupervisor } from './support/supervisor.ts';

// docs/coming-from-tini.md sets each flag of tini and dumb-init beside its
// sidecar-init form. Each row's form, as the page writes it (APP replaced by a
// fixture), is run here and does what the row says; a row without a check,
// or a check without a row, fails, and so does a flag of either tool the page
// leaves out.

const PAGE = 'docs/coming-from-tini.md';
const TABLE = tableWithHeader(PAGE, ['tini or dumb-init', 'what it does there', 'in sidecar-init']);
/** Every flag of tini (0.19: `tini -h`) and of dumb-init (1.2: `dumb-init --help`). */
const FLAGS = {
  tini: ['-s', '-g', '-e', '-p', '-v', '-w', '-l', '-h', '--version'],
  'dumb-init': ['-c', '--single-child', '-r', '--rewrite', '-v', '--verbose', '-h', '-V'],
};
const ORPHANS = 5;
const { track, events: createEvents, expectNothingLeft } = useHarness();

/** A row's sidecar-init forms: its code spans that start with `sidecar-init`, as argv after it. */
function formsOf(cell: string): string[][] {
  return codeSpans(cell)
    .filter((span) => span.startsWith('sidecar-init '))
    .map((span) => span.split(' ').slice(1));
}

/** The row's first form, with APP replaced by the app's argv. */
function firstForm(forms: readonly string[][], app: readonly string[] = []): string[] {
  const [form] = forms;
  if (form === undefined) throw new Error('the row gives no `sidecar-init …` form to run');
  return form.flatMap((word) => (word === 'APP' ? app : [word]));
}

/** SIGUSR1 to sidecar-init, and who of the app's children heard it: `member` shares the app's group, `loner` has a session of its own. */
async function usr1Receivers(form: string[]): Promise<string[]> {
  const events = createEvents();
  const run = track(startSupervisor(form, { env: { EVENTS: events.file } }));
  await events.waitFor('app start');
  run.process.kill('SIGUSR1');
  await events.waitFor('app got-USR1');
  // A group's USR1 is pending in each member at once, and a shell runs pending traps in
  // signal order: by its USR2's trap, the member has run its USR1's, if one came.
  for (const child of ['member', 'loner']) process.kill(Number(readFileSync(`${events.file}.${child}`, 'utf8')), 'SIGUSR2');
  await events.waitFor('member got-USR2', 'loner got-USR2');
  run.process.kill('SIGTERM');
  expect((await run.exited).code).toBe(0);
  await expectNothingLeft(run);
  return events
    .sequence()
    .filter((entry) => entry.endsWith(' got-USR1'))
    .sort();
}

/** The form with APP a job that exits at once, run to its end: its log at the level the form gives. */
async function logOf(form: string[]) {
  const run = track(await runSupervisor(form));
  expect(run.code, run.stderr()).toBe(0);
  await expectNothingLeft(run);
  return run.logs;
}

const CHECKS: Readonly<Record<string, (forms: readonly string[][]) => Promise<void> | void>> = {
  'tini -s': async (forms) => {
    const events = createEvents();
    const run = track(startSupervisor(firstForm(forms, fixtureArgv('adopt-me.sh', 'app')), { env: { EVENTS: events.file } }));
    await events.waitFor('app start');
    const orphan = events.read().find((entry) => entry.event === 'orphan');
    expect(parentOf(orphan!.pid)).toBe(run.process.pid);
    expect(await run.waitForLog((line) => line.event === 'starting')).toMatchObject({ mode: 'subreaper' });
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    await expectNothingLeft(run);
  },
  'tini -g': async (forms) => {
    expect(await usr1Receivers(firstForm(forms, fixtureArgv('fork-groups.sh', 'app')))).toEqual(['app got-USR1', 'member got-USR1']);
  },
  'dumb-init -c, --single-child': async (forms) => {
    expect(await usr1Receivers(firstForm(forms, fixtureArgv('fork-groups.sh', 'app')))).toEqual(['app got-USR1']);
  },
  'tini -e EXIT_CODE': async (forms) => {
    const run = track(await runSupervisor(firstForm(forms, ['sh', '-c', 'exit 143'])));
    expect(run.code, run.stderr()).toBe(0);
    await expectNothingLeft(run);
  },
  'tini -p SIGNAL': async (forms) => {
    const events = createEvents();
    // The parent: a shell that starts sidecar-init in the background and waits, killed by the test.
    const parent = ['sh', '-c', '"$@" & wait', 'parent'];
    const form = firstForm(forms, fixtureArgv('record-stop-signal.sh', 'app'));
    const run = track(startSupervisor(form, { wrapper: parent, env: { EVENTS: events.file } }));
    await events.waitFor('app start');
    run.process.kill('SIGKILL');
    // The stderr pipe closes once sidecar-init and the app, the last to hold it, are gone.
    await run.exited;
    expect(events.sequence()).toEqual(['app start', 'app got-TERM']);
    expect(run.logs.find((line) => line.event === 'exit')).toMatchObject({ exitCode: 0 });
    await expectNothingLeft(run);
  },
  'tini -v (up to -vvv)': async (forms) => {
    expect((await logOf(firstForm(forms, ['true']))).filter((line) => line.level === 'debug')).not.toEqual([]);
  },
  'dumb-init -v, --verbose': async (forms) => {
    expect((await logOf(firstForm(forms, ['true']))).filter((line) => line.level === 'debug')).not.toEqual([]);
  },
  'tini -w': async (forms) => {
    const events = createEvents();
    const app = ['/bin/sh', '-c', `${fixture('make-orphans.sh', String(ORPHANS))} && ${fixture('count-zombies.sh', 'app')}`];
    const run = track(await runSupervisor(firstForm(forms, app), { pid1: true, env: { EVENTS: events.file } }));
    expect(run.code, run.stderr()).toBe(0);
    expect(events.sequence()).toEqual(['app zombies-0']);
    const reaped = run.logs.filter((line) => line.event === 'reaped');
    expect(reaped.every((line) => line.level === 'info')).toBe(true);
    expect(reaped.reduce((sum, line) => sum + Number(line.count), 0)).toBeGreaterThanOrEqual(ORPHANS);
    await expectNothingLeft(run);
  },
  'tini -l': (forms) => {
    expect(forms).toEqual([]);
    expect(readFileSync(`${REPO_ROOT}LICENSE`, 'utf8')).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/);
    const pkg = JSON.parse(readFileSync(`${REPO_ROOT}package.json`, 'utf8')) as { license: string; files: string[] };
    expect(pkg.license).toBe('Apache-2.0');
    expect(pkg.files).toEqual(expect.arrayContaining(['LICENSE', 'dist/THIRD-PARTY-NOTICES.txt']));
  },
  'tini -h, dumb-init -h': async (forms) => {
    const run = await runSupervisor(firstForm(forms));
    expect(run.code).toBe(0);
    expect(run.stdout()).toMatch(/^Usage: sidecar-init /);
  },
  'tini --version, dumb-init -V': async (forms) => {
    const run = await runSupervisor(firstForm(forms));
    expect(run.code).toBe(0);
    expect(run.stdout()).toMatch(/^\d+\.\d+\.\d+\S*\n$/);
  },
  'dumb-init -r s:r, --rewrite s:r': async (forms) => {
    const events = createEvents();
    const run = track(startSupervisor(firstForm(forms, fixtureArgv('record-stop-signal.sh', 'app')), { env: { EVENTS: events.file } }));
    await events.waitFor('app start');
    // Dropped (1:0): had it been passed on, the app would have exited on it before the QUIT (15:3).
    run.process.kill('SIGHUP');
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    expect(events.sequence()).toEqual(['app start', 'app got-QUIT']);
    await expectNothingLeft(run);
  },
  "dumb-init's default setsid (DUMB_INIT_SETSID=0 turns it off)": async (forms) => {
    const events = createEvents();
    // Fields 1 and 6 of /proc/PID/stat: the pid and its session (the command, field 2, is "sh").
    const app = ['sh', '-c', `cut -d' ' -f1,6 /proc/$$/stat > ${shellJoin(`${events.file}.session`)}`];
    const run = track(await runSupervisor(firstForm(forms, app)));
    expect(run.code, run.stderr()).toBe(0);
    const [pid, session] = readFileSync(`${events.file}.session`, 'utf8').trim().split(' ');
    expect(session).toBe(pid);
    await expectNothingLeft(run);
  },
};

describe(`${PAGE}: their flags and what to write instead`, () => {
  it('has a row for every flag of tini and dumb-init, and a check for each row, and no other', () => {
    const firstCells = TABLE.rows.map((row) => row[0]!);
    for (const [tool, flags] of Object.entries(FLAGS)) {
      const given = firstCells.filter((cell) => cell.includes(tool)).flatMap((cell) => codeSpans(cell).map((span) => span.split(' ')[0]));
      for (const flag of flags) expect(given, `${tool} ${flag}`).toContain(flag);
    }
    expect(TABLE.rows.map((row) => plainCell(row[0]!)).sort()).toEqual(Object.keys(CHECKS).sort());
  });

  it.each(TABLE.rows.map((row) => [plainCell(row[0]!), row[2]!] as const))('%s: its sidecar-init form does it', async (key, cell) => {
    await CHECKS[key]!(formsOf(cell));
  });
});
