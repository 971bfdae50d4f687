import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { errorCode } from '../support/error-code.ts';
import { startStandin, startZombieStandin, uniqueUid, useStandins } from '../../test/support/standin.ts';
import { processMatch } from '../../test/support/matchers.ts';
import { truncateComm } from '../plan/process-match.ts';
import {
  CMDLINE_MATCH_BYTES,
  describeFound,
  type FindOptions,
  foundIn,
  isEmptyMatcher,
  isStillTheProcess,
  searchProcesses,
} from './find-processes.ts';

/** The processes a search found, as a list. */
async function findProcesses(fields: Parameters<typeof processMatch>[0], options: FindOptions) {
  return foundIn(await searchProcesses(processMatch(fields), options));
}

// Real processes with real names and UIDs: the stand-in proxies run as a random
// UID each, which also keeps parallel test files from seeing each other's.

const { selfPid } = useStandins();

describe('searchProcesses', () => {
  test('matches comm exactly, with the UID', async () => {
    const proxy = await startStandin('pilot-agent');
    expect(await findProcesses({ comm: 'pilot-agent', uid: proxy.uid }, { selfPid: selfPid() })).toEqual([
      expect.objectContaining({ pid: proxy.pid, comm: 'pilot-agent', uid: proxy.uid }),
    ]);
    // Its child has its own comm; a prefix or another UID is no match.
    expect((await findProcesses({ comm: 'envoy', uid: proxy.uid }, { selfPid: selfPid() })).map((found) => found.pid)).toEqual([
      proxy.childPid,
    ]);
    expect(await findProcesses({ comm: 'pilot', uid: proxy.uid }, { selfPid: selfPid() })).toEqual([]);
    expect(await findProcesses({ comm: 'pilot-agent', uid: proxy.uid + 1 }, { selfPid: selfPid() })).toEqual([]);
  });

  test('compares comm as the kernel keeps it: cut to 15 bytes', async () => {
    const proxy = await startStandin('alloydb-auth-proxy');
    expect(truncateComm('alloydb-auth-proxy')).toBe('alloydb-auth-pr');
    expect((await findProcesses({ comm: 'alloydb-auth-proxy', uid: proxy.uid }, { selfPid: selfPid() })).map((found) => found.pid)).toEqual(
      [proxy.pid],
    );
  });

  test('matches a regular expression over the arguments joined by spaces', async () => {
    const proxy = await startStandin('linkerd2-proxy', { args: ['--identity', 'web.default'] });
    const [found] = await findProcesses(
      { cmdline: 'linkerd2-proxy --standin-ephemeral-ports --identity web\\.default$', uid: proxy.uid },
      { selfPid: selfPid() },
    );
    expect(found).toMatchObject({ pid: proxy.pid, comm: 'linkerd2-proxy' });
    expect(found?.cmdline).toMatch(/^\/usr\/bin\/python3 \S+\/linkerd2-proxy --standin-ephemeral-ports --identity web\.default$/);
  });

  test('matches only the first 64 KiB of a command line, however long the process made it', async () => {
    // 1.5 MB of arguments, then a marker: a pattern never runs over more than CMDLINE_MATCH_BYTES of them.
    const padding = Array.from({ length: 15 }, (_, index) => `${index}`.padEnd(100_000, 'a'));
    const proxy = await startStandin('linkerd2-proxy', { args: [...padding, '--marker-at-the-end'] });
    const [found] = await findProcesses({ cmdline: '^\\S+python3 \\S+/linkerd2-proxy ', uid: proxy.uid }, { selfPid: selfPid() });
    expect(found).toMatchObject({ pid: proxy.pid });
    expect(Buffer.byteLength(found?.cmdline ?? '')).toBeLessThanOrEqual(CMDLINE_MATCH_BYTES);
    expect(await findProcesses({ cmdline: 'marker-at-the-end', uid: proxy.uid }, { selfPid: selfPid() })).toEqual([]);
  });

  test('is still the process it found only while the PID has the same start time, name, UID and command line', async () => {
    const proxy = await startStandin('pilot-agent');
    const match = processMatch({ comm: 'pilot-agent', uid: proxy.uid });
    const [found] = await findProcesses({ comm: 'pilot-agent', uid: proxy.uid }, { selfPid: selfPid() });
    if (found === undefined) throw new Error('the stand-in was not found');
    const stat = readFileSync(`/proc/${proxy.pid}/stat`, 'utf8');
    expect(found.startTime).toBe(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    expect(isStillTheProcess(found, match)).toBe(true);
    // What a process that got the PID after this one exited would show: another start, name, UID or command line.
    expect(isStillTheProcess({ ...found, startTime: String(Number(found.startTime) + 1) }, match)).toBe(false);
    expect(isStillTheProcess({ ...found, comm: 'innocent' }, match)).toBe(false);
    expect(isStillTheProcess({ ...found, uid: found.uid + 1 }, match)).toBe(false);
    expect(isStillTheProcess({ ...found, cmdline: `${found.cmdline} x` }, match)).toBe(false);
  });

  test('never matches sidecar-init itself, its ancestors or its descendants', async () => {
    const proxy = await startStandin('pilot-agent');
    // As if the proxy were sidecar-init: neither it nor its envoy child is found, nor this test (its parent).
    expect(await findProcesses({ uid: proxy.uid }, { selfPid: proxy.pid })).toEqual([]);
    expect(
      (await findProcesses({ cmdline: 'vitest|standin', maxMatches: 1000 }, { selfPid: proxy.pid })).map((found) => found.pid),
    ).not.toContain(process.pid);
    expect((await findProcesses({ uid: proxy.uid }, { selfPid: selfPid() })).map((found) => found.pid).sort()).toEqual(
      [proxy.pid, proxy.childPid].sort(),
    );
  });

  test('an empty matcher matches nothing', async () => {
    expect(isEmptyMatcher({})).toBe(true);
    expect(await findProcesses({}, { selfPid: selfPid() })).toEqual([]);
  });

  test('a process that has exited is not found', async () => {
    const proxy = await startStandin('envoy');
    process.kill(proxy.pid, 'SIGKILL');
    await proxy.exited;
    expect(await findProcesses({ comm: 'envoy', uid: proxy.uid }, { selfPid: selfPid() })).toEqual([]);
  });

  test('a zombie match (dead, not yet reaped by its parent) is not found', async () => {
    // "a process that has exited" above is reaped before the search: this one still has its /proc entry, comm and UID.
    const zombie = await startZombieStandin();
    expect(await findProcesses({ comm: 'envoy', uid: zombie.uid }, { selfPid: selfPid() })).toEqual([]);
    expect(await searchProcesses(processMatch({ uid: zombie.uid }), { selfPid: selfPid() })).toMatchObject({
      kind: 'found',
      processes: [expect.objectContaining({ pid: zombie.parentPid })],
    });
  });

  test('never matches a kernel thread, whose command line is empty', async () => {
    // kthreadd (PID 2) and its children in the host's namespace: an empty cmdline matches ^$.
    const found = await findProcesses({ cmdline: '^$', maxMatches: 100_000 }, { selfPid: selfPid() });
    expect(found.map(({ pid }) => pid)).not.toContain(2);
    // A match may exit before its stat is read (another test's short-lived child, whose
    // command line is empty while it exits): gone, it was no kernel thread, which never exits.
    for (const { pid } of found) expect(statIfPresent(pid)).not.toMatch(/^2 \(kthreadd\)/);
  });

  test('more independent matches than maxMatches is refused, listing each; a matched process’s children do not count', async () => {
    const uid = uniqueUid();
    // pilot-agent runs envoy as its child: two processes of the UID, one independent match.
    const mesh = await startStandin('pilot-agent', { uid });
    expect(await searchProcesses(processMatch({ uid }), { selfPid: selfPid() })).toMatchObject({ kind: 'found' });
    const other = await startStandin('envoy', { uid });
    const search = await searchProcesses(processMatch({ uid }), { selfPid: selfPid() });
    expect(search).toMatchObject({ kind: 'too-many', independent: 2 });
    const pids = search.kind === 'too-many' ? search.processes.map(({ pid }) => pid).sort() : [];
    expect(pids).toEqual([mesh.pid, mesh.childPid, other.pid].sort());
    expect(await searchProcesses(processMatch({ uid, maxMatches: 2 }), { selfPid: selfPid() })).toMatchObject({ kind: 'found' });
    const described = describeFound(search.kind === 'too-many' ? search.processes : []);
    expect(described).toContain(`PID ${other.pid} "envoy" UID ${uid} cmdline "/usr/bin/python3 `);
  });

  test('a logged command line is quoted with its control characters escaped, and cut', () => {
    const found = { pid: 7, ppid: 1, comm: 'evil\u001b[2J', uid: 0, cmdline: `x\ny ${'a'.repeat(300)}`, startTime: '1' };
    const described = describeFound([found]);
    expect(described).toMatch(/^PID 7 "evil\\u001b\[2J" UID 0 cmdline "x\\ny a+…"$/);
    expect(described.length).toBeLessThan(200);
  });
});

/** /proc/PID/stat, or '' once the process is gone. */
function statIfPresent(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ESRCH') return '';
    throw error;
  }
}
