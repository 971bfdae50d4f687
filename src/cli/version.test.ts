import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { BUILD_STAMP, UNKNOWN, VERSION } from './version.ts';

it('is the version in package.json', () => {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  expect(VERSION).toBe(manifest.version);
});

it('says the commit and its time are unknown when run from sources, which no build stamped', () => {
  // The bundle's and the executable's stamps: test/version-report.test.ts.
  expect(BUILD_STAMP).toEqual({ commit: UNKNOWN, time: UNKNOWN });
});
