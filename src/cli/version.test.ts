import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { VERSION, describeBuild } from './version.ts';

it('is the version in package.json', () => {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  expect(VERSION).toBe(manifest.version);
});

it('names version, platform and runtime when verbose', () => {
  const text = describeBuild();
  expect(text).toContain(`sidecar-init ${VERSION}\n`);
  expect(text).toContain(`platform: ${process.platform}-${process.arch} (glibc `);
  expect(text).toContain(`runtime: Node ${process.version}`);
});
