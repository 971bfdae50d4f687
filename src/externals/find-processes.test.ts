import { describe, expect, test } from 'vitest';
import { startStandin, useStandins } from '../../test/support/standin.ts';
import { findProcesses, isEmptyMatcher, truncateComm } from './find-processes.ts';

// Real processes with real names and UIDs: the stand-in proxies run as a random
// UID each, which also keeps parallel test files from seeing each other's.

const { selfPid } = useStandins();

describe('findProcesses', () => {
  test('matches comm exactly, with the UID', async () => {
    const proxy = await startStandin('pilot-agent');
    expect(findProcesses({ comm: 'pilot-agent', uid: proxy.uid }, { selfPid: selfPid() })).toEqual([
      expect.objectContaining({ pid: proxy.pid, comm: 'pilot-agent', uid: proxy.uid }),
    ]);
    // Its child has its own comm; a prefix or another UID is no match.
    expect(findProcesses({ comm: 'envoy', uid: proxy.uid }, { selfPid: selfPid() }).map((found) => found.pid)).toEqual([proxy.childPid]);
    expect(findProcesses({ comm: 'pilot', uid: proxy.uid }, { selfPid: selfPid() })).toEqual([]);
    expect(findProcesses({ comm: 'pilot-agent', uid: proxy.uid + 1 }, { selfPid: selfPid() })).toEqual([]);
  });

  test('compares comm as the kernel keeps it: cut to 15 bytes', async () => {
    const proxy = await startStandin('alloydb-auth-proxy');
    expect(truncateComm('alloydb-auth-proxy')).toBe('alloydb-auth-pr');
    expect(findProcesses({ comm: 'alloydb-auth-proxy', uid: proxy.uid }, { selfPid: selfPid() }).map((found) => found.pid)).toEqual([
      proxy.pid,
    ]);
  });

  test('matches a regular expression over the arguments joined by spaces', async () => {
    const proxy = await startStandin('linkerd2-proxy', { args: ['--identity', 'web.default'] });
    const [found] = findProcesses(
      { cmdline: /linkerd2-proxy --standin-ephemeral-ports --identity web\.default$/, uid: proxy.uid },
      { selfPid: selfPid() },
    );
    expect(found).toMatchObject({ pid: proxy.pid, comm: 'linkerd2-proxy' });
    expect(found?.cmdline).toMatch(/^\/usr\/bin\/python3 \S+\/linkerd2-proxy --standin-ephemeral-ports --identity web\.default$/);
  });

  test('never matches sidecar-init itself, its ancestors or its descendants', async () => {
    const proxy = await startStandin('pilot-agent');
    // As if the proxy were sidecar-init: neither it nor its envoy child is found, nor this test (its parent).
    expect(findProcesses({ uid: proxy.uid }, { selfPid: proxy.pid })).toEqual([]);
    expect(findProcesses({ cmdline: /vitest|standin/ }, { selfPid: proxy.pid }).map((found) => found.pid)).not.toContain(process.pid);
    expect(
      findProcesses({ uid: proxy.uid }, { selfPid: selfPid() })
        .map((found) => found.pid)
        .sort(),
    ).toEqual([proxy.pid, proxy.childPid].sort());
  });

  test('an empty matcher matches nothing', () => {
    expect(isEmptyMatcher({})).toBe(true);
    expect(findProcesses({}, { selfPid: selfPid() })).toEqual([]);
  });

  test('a process that has exited is not found', async () => {
    const proxy = await startStandin('envoy');
    process.kill(proxy.pid, 'SIGKILL');
    await proxy.exited;
    expect(findProcesses({ comm: 'envoy', uid: proxy.uid }, { selfPid: selfPid() })).toEqual([]);
  });
});
