import * as z from 'zod';
import { type Argv, CommandSchema, parseCommand } from './command.ts';
import { bareNumberMessage, durationText, looksLikeDuration, parseDuration, positiveDuration } from './duration.ts';
import { HTTP_METHODS } from './literals.ts';
import { parseHttpUrl } from './parse-http-url.ts';
import { DEFAULT_HOOK_HTTP_METHOD, DEFAULT_HOOK_TIMEOUT_MS, type DrainSpec, type HookSpec } from '../plan/plan.ts';
import { fail, listAlternatives, mapResult, ok, quote, type Result } from './result.ts';
import { checkedBy, exactlyOneOf, mapping, parsedWith } from './schema-fields.ts';

// postStart, preStop and the pod-level drain command: a command or an HTTP
// request, bounded by a timeout. The drain may also be a plain delay.

const HttpHookSchema = mapping({
  url: parsedWith(z.string().meta({ description: 'http://HOST:PORT/PATH', examples: ['http://127.0.0.1:15000/drain_listeners'] }), (url) =>
    parseHttpUrl(url, 'hook'),
  ),
  method: z
    .string()
    .check(checkedBy(parseHttpMethod))
    .optional()
    .meta({ description: `${HTTP_METHODS.join(', ')}, in any case.`, default: DEFAULT_HOOK_HTTP_METHOD, examples: ['POST'] }),
});

export const HookSchema = mapping({
  exec: CommandSchema.optional().meta({ description: "Run with the process's env and cwd; exit 0 is success." }),
  http: HttpHookSchema.optional().meta({ description: 'An HTTP request to a process in the container.' }),
  timeout: positiveDuration('Bound on the hook; it counts as failed past it.', DEFAULT_HOOK_TIMEOUT_MS).optional(),
})
  // Checked on what was written, even when a field has problems of its own.
  .check(z.superRefine(exactlyOneOf(['exec', 'http']), { when: () => true }))
  .meta({ oneOf: [{ required: ['exec'] }, { required: ['http'] }] })
  .transform(({ exec, http, timeout = DEFAULT_HOOK_TIMEOUT_MS }): HookSpec => {
    if (exec !== undefined) return createExecHook(exec, timeout);
    return { kind: 'http', url: http!.url, method: (http!.method ?? DEFAULT_HOOK_HTTP_METHOD).toUpperCase(), timeoutMs: timeout };
  });

export function createExecHook(command: Argv, timeoutMs = DEFAULT_HOOK_TIMEOUT_MS): HookSpec {
  return { kind: 'exec', command, timeoutMs };
}

function parseHttpMethod(text: string): Result<string> {
  const method = text.toUpperCase();
  if ((HTTP_METHODS as readonly string[]).includes(method)) return ok(method);
  return fail(`${quote(text)} is not an HTTP method for a hook; use ${listAlternatives(HTTP_METHODS)}`);
}

/** `drain:` in the file: a duration (a plain delay) or a hook mapping; never a bare command string. */
export const DrainSchema = z.union(
  [
    parsedWith(durationText('A plain delay.'), (text) => {
      const delay = parseDuration(text);
      if (delay.ok) return ok<DrainSpec>({ kind: 'delay', ms: delay.value });
      const hint = text.trim() === '' ? '' : `; to run a command, write drain: {exec: ${JSON.stringify(text)}}`;
      return fail(`${delay.message}${hint}`);
    }),
    HookSchema.transform((hook): DrainSpec => ({ kind: 'hook', hook })),
  ],
  { error: (issue) => (typeof issue.input === 'number' ? bareNumberMessage(String(issue.input)) : undefined) },
);

/**
 * `--drain DURATION|CMD`: a value that reads as a duration is a delay, anything
 * else a command split like a shell. What was meant as a duration but is not
 * one (a bare number, -1s) is refused, not run as a program named "5" or "-1s".
 */
export function parseDrainFlag(value: string): Result<DrainSpec> {
  const delay = parseDuration(value);
  if (delay.ok) return ok({ kind: 'delay', ms: delay.value });
  if (looksLikeDuration(value)) return delay;
  return mapResult(parseCommand(value), (command) => ({ kind: 'hook', hook: createExecHook(command) }));
}
