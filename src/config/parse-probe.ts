import type { ProbeSpec } from './plan.ts';
import { fail, ok, quote, type Result } from './result.ts';
import { splitCommand } from './split-command.ts';

// PROBE is tcp://HOST:PORT, http://HOST:PORT/PATH (2xx/3xx is success) or
// exec:CMD (exit 0 is success; CMD split like a shell, never run through one).

export const PROBE_HINT = 'use tcp://HOST:PORT, http://HOST:PORT/PATH or exec:CMD';

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const TCP = /^tcp:\/\/(\[[^\]]*\]|[^:/?#@[\]]*)(?::([^/?#]*))?(.*)$/is;
const HTTP_AUTHORITY = /^http:\/\/([^/?#]*)/i;
const HOST_PORT = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/s;
const MAX_PORT = 65_535;

export function parseProbe(text: string): Result<ProbeSpec> {
  const scheme = SCHEME.exec(text)?.[1]?.toLowerCase();
  switch (scheme) {
    case 'tcp':
      return parseTcpProbe(text);
    case 'http':
      return parseHttpProbe(text);
    case 'https':
      return fail('https probes are not supported yet; use http:// (probes reach the sidecar inside the container, usually on 127.0.0.1)');
    case 'exec':
      return parseExecProbe(text.slice('exec:'.length));
    default:
      return fail(`${quote(text)} is not a probe; ${PROBE_HINT}`);
  }
}

function parseTcpProbe(text: string): Result<ProbeSpec> {
  const [, host = '', port, rest = ''] = TCP.exec(text) ?? [];
  if (host === '' || host === '[]') return fail(`${quote(text)} has no host; use tcp://HOST:PORT, e.g. tcp://127.0.0.1:15000`);
  if (port === undefined || port === '') return fail(`${quote(text)} has no port; use tcp://HOST:PORT, e.g. tcp://127.0.0.1:15000`);
  if (rest !== '') return fail(`${quote(text)}: a tcp probe takes only HOST:PORT, not ${quote(rest)}`);
  const checked = parsePort(port);
  if (!checked.ok) return checked;
  return ok({ kind: 'tcp', host: host.replace(/^\[(.*)\]$/s, '$1'), port: checked.value });
}

function parseHttpProbe(text: string): Result<ProbeSpec> {
  const authority = HTTP_AUTHORITY.exec(text)?.[1] ?? '';
  if (authority.includes('@')) return fail(`${quote(text)}: credentials in a probe URL are not supported`);
  const [, host = '', port] = HOST_PORT.exec(authority) ?? [];
  if (host === '' || host === '[]') return fail(`${quote(text)} has no host; use http://HOST:PORT/PATH, e.g. http://127.0.0.1:8080/ready`);
  if (port !== undefined) {
    const checked = parsePort(port);
    if (!checked.ok) return checked;
  }
  try {
    return ok({ kind: 'http', url: new URL(text).href });
  } catch {
    return fail(`${quote(text)} is not a valid URL; use http://HOST:PORT/PATH, e.g. http://127.0.0.1:8080/ready`);
  }
}

function parseExecProbe(commandText: string): Result<ProbeSpec> {
  const words = splitCommand(commandText);
  if (!words.ok) return fail(`exec probe: ${words.message}`);
  const [program, ...args] = words.value;
  if (program === undefined || program === '') return fail('exec: needs a command, e.g. exec:pg_isready -h 127.0.0.1');
  return ok({ kind: 'exec', command: [program, ...args] });
}

function parsePort(text: string): Result<number> {
  const port = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(port >= 1 && port <= MAX_PORT)) return fail(`port ${quote(text)} is not a number from 1 to ${MAX_PORT}`);
  return ok(port);
}
