import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../src/plan/presets.ts';
import { docPages, REPO_ROOT, readPage } from './support/docs.ts';
import { BIN_COMMAND } from './support/supervisor.ts';

// The status server's port in every example a user copies (README, docs/,
// examples/, --help) is one port, and one no common sidecar of the same pod
// listens on: an example on Envoy's admin port (9901, which the envoy preset
// probes) makes the status server fail to bind beside that very proxy.

const SUGGESTED_PORT = 9797;

/**
 * Ports the sidecars sidecar-init runs beside listen on, each from the
 * project's own documentation: Envoy's and Kuma's admin (9901), Istio's agent
 * and proxy (15000-15090), Linkerd's proxy (4140, 4143, 4191), Consul
 * dataplane's (19000, 20000, 20600), cloud-sql-proxy's and AlloyDB's health
 * and quit (9090, 9091), Dapr's (3500, 50001), the OpenTelemetry collector's
 * (13133, 8888, 4317, 4318), Prometheus' node exporter (9100), and the port
 * every web app takes first (8080), besides every preset's own.
 */
const SIDECAR_PORTS = new Set([
  9901,
  4140,
  4143,
  4191,
  19000,
  20000,
  20600,
  9090,
  9091,
  3500,
  50001,
  13133,
  8888,
  4317,
  4318,
  9100,
  8080,
  ...Array.from({ length: 91 }, (_, index) => 15000 + index),
  ...Object.values(PRESETS).flatMap((preset) => [preset.ready, preset.quitUrl ?? preset.ready].map((url) => Number(new URL(url).port))),
]);

/** Every status address an example gives: --status-addr, statusAddr, SIDECAR_INIT_STATUS_ADDR, and the annotation that scrapes it. */
const STATUS_ADDRESS = /(?:--status-addr[ =",]+|statusAddr:\s*|SIDECAR_INIT_STATUS_ADDR=|prometheus\.io\/port:\s*)"?([^\s",)`]+)/g;

function filesUnder(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

function addressesIn(text: string): string[] {
  return [...text.matchAll(STATUS_ADDRESS)]
    .map((match) => match[1] ?? '') // An address or a port (":9797", "127.0.0.1:9797", "9797"), not the words of a sentence about the flag.
    .filter((address) => /^(\S*:)?\d+$/.test(address));
}

describe('the status server port in examples', () => {
  it('is no port of a common sidecar', () => {
    expect(SIDECAR_PORTS.has(SUGGESTED_PORT)).toBe(false);
  });

  it(`is ${SUGGESTED_PORT} in the README, every page of docs/, every example and --help`, () => {
    const sources = [
      ...docPages().map((page) => ({ where: page, text: readPage(page) })),
      ...filesUnder('examples').map((file) => ({ where: file, text: readFileSync(join(REPO_ROOT, file), 'utf8') })),
      { where: '--help', text: spawnSync(BIN_COMMAND[0] ?? '', [...BIN_COMMAND.slice(1), '--help'], { encoding: 'utf8' }).stdout },
    ];
    const found = sources.flatMap(({ where, text }) => addressesIn(text).map((address) => ({ where, address })));
    // The help names it, and the docs do in several places: a pattern that stopped matching would pass on nothing.
    expect(found.filter(({ where }) => where === '--help').length).toBeGreaterThan(0);
    expect(found.length).toBeGreaterThan(5);
    expect(found.filter(({ address }) => !address.endsWith(String(SUGGESTED_PORT)))).toEqual([]);
  });
});
