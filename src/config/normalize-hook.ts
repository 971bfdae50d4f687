import type { RawHook } from './hook-schema.ts';
import { HTTP_METHODS } from './literals.ts';
import { normalizeCommand, type Argv } from './normalize-command.ts';
import { normalizePositiveDuration } from './normalize-duration.ts';
import { parseHttpUrl } from './parse-http-url.ts';
import { DEFAULT_HOOK_HTTP_METHOD, DEFAULT_HOOK_TIMEOUT_MS, type HookSpec } from './plan.ts';
import { at, valueOrReport, type Origin, type Report } from './problem.ts';
import { fail, listAlternatives, ok, quote, type Result } from './result.ts';
import type { Salvaged } from './salvage.ts';

/** postStart, preStop or drain as a HookSpec; reports and returns undefined when unusable. */
export function normalizeHook(raw: Salvaged<RawHook>, origin: Origin, report: Report): HookSpec | undefined {
  const timeoutMs = normalizePositiveDuration(raw.timeout, DEFAULT_HOOK_TIMEOUT_MS, at(origin, 'timeout'), report);
  // Exactly one of exec and http: the schema reported none or both.
  if ((raw.exec === undefined) === (raw.http === undefined)) return undefined;
  if (raw.exec !== undefined) {
    const command = normalizeCommand(raw.exec, at(origin, 'exec'), report);
    return command === undefined || timeoutMs === undefined ? undefined : createExecHook(command, timeoutMs);
  }
  const http = raw.http ?? {};
  const url = http.url === undefined ? undefined : valueOrReport(parseHttpUrl(http.url, 'hook'), at(origin, 'http', 'url'), report);
  const method = valueOrReport(parseHttpMethod(http.method ?? DEFAULT_HOOK_HTTP_METHOD), at(origin, 'http', 'method'), report);
  if (url === undefined || method === undefined || timeoutMs === undefined) return undefined;
  return { kind: 'http', url, method, timeoutMs };
}

export function createExecHook(command: Argv, timeoutMs = DEFAULT_HOOK_TIMEOUT_MS): HookSpec {
  return { kind: 'exec', command, timeoutMs };
}

function parseHttpMethod(text: string): Result<string> {
  const method = text.toUpperCase();
  if ((HTTP_METHODS as readonly string[]).includes(method)) return ok(method);
  return fail(`${quote(text)} is not an HTTP method for a hook; use ${listAlternatives(HTTP_METHODS)}`);
}
