import { parseHttpUrl, parsePort } from './parse-http-url.ts';
import type { ProbeSpec } from './plan.ts';
import { fail, ok, quote, type Result } from './result.ts';
import { splitCommand } from './split-command.ts';

// The string form of a probe, shared by `--ready` and the YAML shorthand:
// tcp://HOST:PORT, http://HOST:PORT/PATH (2xx/3xx is success), exec:CMD (exit 0
// is success; CMD split like a shell, never run through one), log:REGEX (a line
// of the process's output matches) or file:PATH (the file exists).

export const PROBE_HINT = 'use tcp://HOST:PORT, http://HOST:PORT/PATH, exec:CMD, log:REGEX or file:PATH';

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const TCP = /^tcp:\/\/(\[[^\]]*\]|[^:/?#@[\]]*)(?::([^/?#]*))?(.*)$/is;

export function parseProbe(text: string): Result<ProbeSpec> {
  const scheme = SCHEME.exec(text)?.[1]?.toLowerCase();
  switch (scheme) {
    case 'tcp':
      return parseTcpProbe(text);
    case 'http':
    case 'https':
      return mapResult(parseHttpUrl(text, 'probe'), (url) => ({ kind: 'http', url, headers: {}, expectStatus: undefined }));
    case 'exec':
      return mapResult(parseExecCommand(text.slice('exec:'.length)), (command) => ({ kind: 'exec', command }));
    case 'log':
      return mapResult(parseLogPattern(text.slice('log:'.length)), (pattern) => ({ kind: 'log', pattern }));
    case 'file':
      return mapResult(parseFilePath(text.slice('file:'.length)), (path) => ({ kind: 'file', path }));
    default:
      return fail(`${quote(text)} is not a probe; ${PROBE_HINT}`);
  }
}

/** A pattern that compiles as a JavaScript RegExp, as the log probe will compile it. */
export function parseLogPattern(pattern: string): Result<string> {
  if (pattern === '') return fail('log: needs a pattern, e.g. log:listening on port \\d+');
  try {
    new RegExp(pattern);
  } catch (error) {
    return fail(`log probe: ${(error as SyntaxError).message}`);
  }
  return ok(pattern);
}

export function parseFilePath(path: string): Result<string> {
  return path === '' ? fail('file: needs a path, e.g. file:/tmp/ready') : ok(path);
}

function parseTcpProbe(text: string): Result<ProbeSpec> {
  const [, host = '', port, rest = ''] = TCP.exec(text) ?? [];
  if (host === '' || host === '[]') return fail(`${quote(text)} has no host; use tcp://HOST:PORT, e.g. tcp://127.0.0.1:15000`);
  if (port === undefined || port === '') return fail(`${quote(text)} has no port; use tcp://HOST:PORT, e.g. tcp://127.0.0.1:15000`);
  if (rest !== '') return fail(`${quote(text)}: a tcp probe takes only HOST:PORT, not ${quote(rest)}`);
  return mapResult(parsePort(port), (checked) => ({ kind: 'tcp', host: host.replace(/^\[(.*)\]$/s, '$1'), port: checked }));
}

function parseExecCommand(commandText: string): Result<string[]> {
  const words = splitCommand(commandText);
  if (!words.ok) return fail(`exec probe: ${words.message}`);
  const [program, ...args] = words.value;
  if (program === undefined || program === '') return fail('exec: needs a command, e.g. exec:pg_isready -h 127.0.0.1');
  return ok([program, ...args]);
}

function mapResult<T>(result: Result<T>, toProbe: (value: T) => ProbeSpec): Result<ProbeSpec> {
  return result.ok ? ok(toProbe(result.value)) : result;
}
