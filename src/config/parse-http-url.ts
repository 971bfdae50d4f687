import { redactUrl } from '../support/redact-url.ts';
import { HTTP_METHODS } from '../plan/literals.ts';
import { fail, ok, type Result } from '../support/result.ts';
import { listAlternatives, quote } from '../support/message-text.ts';
import { checkWholeNumber, PORT_RANGE } from './schema-fields.ts';
import { closestMatch } from '../support/closest-match.ts';

// http:// URLs of probes and hooks. Both reach processes inside the container,
// usually on 127.0.0.1, so plain http is what is supported.

export type UrlUse = 'probe' | 'hook' | 'stop endpoint';

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const HTTP_AUTHORITY = /^http:\/\/([^/?#]*)/i;
// Not anchored at the end: what follows a bracketed host other than :PORT is left
// for new URL() to refuse, so "[::1]x" is not read as the host "[" and the port ":1]x".
const HOST_PORT = /^(\[[^\]]*\]|[^:]*)(?::(.*))?/s;
const URL_EXAMPLE = 'use http://HOST:PORT/PATH, e.g. http://127.0.0.1:8080/ready';

/** Schemes that are no typo of http: a probe's other kinds, given where an http:// URL belongs. */
const OTHER_SCHEMES = new Set(['tcp', 'grpc']);

/** " (did you mean http://…?)" for a scheme a typo away from http (htp://, hptt://), else nothing. */
function didYouMeanHttp(text: string, scheme: string | undefined): string {
  if (scheme === undefined || OTHER_SCHEMES.has(scheme) || closestMatch(scheme, ['http']) === undefined) return '';
  return ` (did you mean ${redactUrl(`http:${text.slice(scheme.length + 1)}`)}?)`;
}

/**
 * The URL as Node writes it (new URL(text).href). Messages quote the URL
 * without its userinfo and query (redactUrl): a rejected URL still carries the
 * password or token the user put in it, and errors reach CI logs.
 */
export function parseHttpUrl(text: string, use: UrlUse): Result<string> {
  const shown = quote(redactUrl(text));
  const scheme = SCHEME.exec(text)?.[1]?.toLowerCase();
  if (scheme === 'https') {
    const why = `${use}s reach processes inside the container, usually on 127.0.0.1`;
    return fail(`https ${use}s are not supported yet; use http:// (${why})`);
  }
  if (scheme !== 'http') return fail(`${shown} is not an http:// URL${didYouMeanHttp(text, scheme)}; ${URL_EXAMPLE}`);
  const authority = HTTP_AUTHORITY.exec(text)?.[1] ?? '';
  if (authority.includes('@')) return fail(`${shown}: credentials in a ${use} URL are not supported`);
  const [, host = '', port] = HOST_PORT.exec(authority) ?? [];
  if (host === '' || host === '[]') return fail(`${shown} has no host; ${URL_EXAMPLE}`);
  if (port !== undefined) {
    const checked = parsePort(port);
    if (!checked.ok) return checked;
  }
  try {
    return ok(new URL(text).href);
  } catch {
    return fail(`${shown} is not a valid URL; ${URL_EXAMPLE}`);
  }
}

/** A port written in a URL or a tcp:// probe. */
export function parsePort(text: string): Result<number> {
  const port = /^\d+$/.test(text) ? checkWholeNumber(Number(text), PORT_RANGE) : undefined;
  return port?.ok === true ? port : fail(`port ${quote(text)} is not a number from ${PORT_RANGE.min} to ${PORT_RANGE.max}`);
}

/** The method of an http hook or stop endpoint, in any case; the value is its upper-case name. */
export function parseHttpMethod(text: string, use: Exclude<UrlUse, 'probe'>): Result<string> {
  const method = text.toUpperCase();
  if ((HTTP_METHODS as readonly string[]).includes(method)) return ok(method);
  return fail(`${quote(text)} is not an HTTP method for a ${use}; use ${listAlternatives(HTTP_METHODS)}`);
}
