import { readFileSync } from 'node:fs';

/**
 * The PID a test's shell wrote to `path` (`echo $$ > path`), or 0 while the file
 * is missing or still empty, so it can be polled with `expect.poll(...).toBeGreaterThan(0)`.
 */
export function readPid(path: string): number {
  try {
    return Number(readFileSync(path, 'utf8').trim()) || 0;
  } catch {
    return 0;
  }
}
