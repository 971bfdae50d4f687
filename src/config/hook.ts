import * as z from 'zod';
import { CommandSchema, describeCommand } from './command.ts';
import { bareNumberMessage, durationText, looksLikeDuration, parseDuration, positiveDuration } from './duration.ts';
import { HTTP_METHODS } from '../plan/literals.ts';
import { parseHttpMethod, parseHttpUrl } from './parse-http-url.ts';
import { DEFAULTS, type DrainSpec, type HookSpec } from '../plan/plan.ts';
import { assertNever } from '../plan/assert-never.ts';
import { fail, ok } from '../support/result.ts';
import { checkedBy, exactlyOneOf, mapping, parsedWith } from './schema-fields.ts';
import { builtOnFirstUse } from '../support/built-on-first-use.ts';

// postStart, preStop and the pod-level drain command: a command or an HTTP
// request, bounded by a timeout. The drain may also be a plain delay.

const HttpHookSchema = builtOnFirstUse(() =>
  mapping({
    url: parsedWith(
      z.string().meta({ description: 'http://HOST:PORT/PATH', examples: ['http://127.0.0.1:15000/drain_listeners'] }),
      (url) => parseHttpUrl(url, 'hook'),
    ),
    method: z
      .string()
      .check(checkedBy((method: string) => parseHttpMethod(method, 'hook')))
      .optional()
      .meta({ description: `${HTTP_METHODS.join(', ')}, in any case.`, default: DEFAULTS.hook.httpMethod, examples: ['POST'] }),
  }),
);

export const HookSchema = builtOnFirstUse(() =>
  mapping({
    exec: CommandSchema().optional().meta({ description: "Run with the process's env and cwd; exit 0 is success." }),
    http: HttpHookSchema().optional().meta({ description: 'An HTTP request to a process in the container.' }),
    timeout: positiveDuration('Bound on the hook; it counts as failed past it.', DEFAULTS.hook.timeoutMs).optional(),
  })
    // Checked on what was written, even when a field has problems of its own.
    .check(z.superRefine(exactlyOneOf(['exec', 'http']), { when: () => true }))
    .meta({ oneOf: [{ required: ['exec'] }, { required: ['http'] }] })
    .transform(({ exec, http, timeout = DEFAULTS.hook.timeoutMs }): HookSpec => {
      if (exec !== undefined) return { kind: 'exec', command: exec, timeoutMs: timeout };
      return { kind: 'http', url: http!.url, method: (http!.method ?? DEFAULTS.hook.httpMethod).toUpperCase(), timeoutMs: timeout };
    }),
);

/** `drain:` in the file: a duration (a plain delay) or a hook mapping; never a bare command string. */
export const DrainSchema = builtOnFirstUse(() =>
  z.union(
    [
      parsedWith(durationText('A plain delay.'), (text) => {
        const delay = parseDuration(text);
        if (delay.ok) return ok<DrainSpec>({ kind: 'delay', ms: delay.value });
        // A value meant as a duration (a flag's -1s) gets no hint; anything else may have been meant as a command.
        const hint =
          text.trim() === '' || looksLikeDuration(text) ? '' : `; to run a command, write drain: {exec: ${JSON.stringify(text)}}`;
        return fail(`${delay.message}${hint}`);
      }),
      HookSchema().transform((hook): DrainSpec => ({ kind: 'hook', hook })),
    ],
    { error: (issue) => (typeof issue.input === 'number' ? bareNumberMessage(String(issue.input)) : undefined) },
  ),
);

/** A hook as `plan` shows it: `exec: CMD` or `http: METHOD URL`. */
export function describeHook(hook: HookSpec): string {
  switch (hook.kind) {
    case 'exec':
      return `exec: ${describeCommand(hook.command)}`;
    case 'http':
      return `http: ${hook.method} ${hook.url}`;
    default:
      return assertNever(hook);
  }
}
