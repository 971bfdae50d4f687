import { describe, expect, it } from 'vitest';
import { useHarness } from './support/harness.ts';
import { runSupervisor } from './support/supervisor.ts';

// A child whose setup fails before its exec (stdin, working directory, its
// user) is reported as that step with its errno, not as the program refusing
// to start: the program was never reached, and the fix is elsewhere.

const { track, expectNothingLeft } = useHarness();

/** A mount namespace whose /dev is an empty tmpfs: a root without /dev/null, as some minimal images have. */
const WITHOUT_DEV_NULL = ['unshare', '--mount', 'sh', '-c', 'mount -t tmpfs none /dev && exec "$@"', 'sh'];

/** Root without CAP_SETGID and CAP_SETUID (dropped from the bounding set, so node never has them): the config check passes, setgid fails. */
const ROOT_WITHOUT_SETID = ['setpriv', '--bounding-set=-setgid,-setuid', '--inh-caps=-setgid,-setuid'];

describe('a setup step that fails before exec', () => {
  it('names stdin when /dev/null cannot be opened', async () => {
    const run = track(await runSupervisor(['--init', 'first=/bin/true', '--', 'true'], { wrapper: WITHOUT_DEV_NULL }));
    expect(run.code, run.stderr()).toBe(126);
    const finished = run.logs.find((line) => line.event === 'finished');
    expect(finished?.msg).toContain(
      'cannot start /bin/true: its stdin could not be opened from /dev/null (does this root have /dev/null?): No such file or directory (ENOENT)',
    );
    expect(finished?.msg).not.toContain('refused');
    await expectNothingLeft(run);
  });

  it('names setgid when the user cannot be taken', async () => {
    const run = track(await runSupervisor(['--user', 'app=65534:65534', '--', 'true'], { wrapper: ROOT_WITHOUT_SETID }));
    expect(run.code, run.stderr()).toBe(126);
    const finished = run.logs.find((line) => line.event === 'finished');
    expect(finished?.msg).toContain('cannot start true: it could not take gid 65534 (setgid;');
    expect(finished?.msg).toContain('Operation not permitted (EPERM)');
    await expectNothingLeft(run);
  });
});
