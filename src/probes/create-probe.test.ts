import { describe, expect, it } from 'vitest';
import { createProbe } from './create-probe.ts';

describe('createProbe', () => {
  const deps = { env: {}, cwd: undefined };

  it('builds each kind from its spec', () => {
    expect(createProbe({ kind: 'tcp', host: '127.0.0.1', port: 15000 }, deps).description).toBe('tcp://127.0.0.1:15000');
    expect(
      createProbe({ kind: 'http', url: 'http://127.0.0.1:15021/healthz/ready', headers: {}, expectStatus: undefined }, deps).description,
    ).toBe('http://127.0.0.1:15021/healthz/ready');
    expect(createProbe({ kind: 'exec', command: ['pg_isready', '-q'] }, deps).description).toBe('exec:pg_isready');
  });
});
