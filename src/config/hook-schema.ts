import * as z from 'zod';
import { CommandSchema } from './command-schema.ts';
import { HTTP_METHODS } from './literals.ts';
import { DEFAULT_HOOK_HTTP_METHOD, DEFAULT_HOOK_TIMEOUT_MS } from './plan.ts';
import { duration, exactlyOneOf } from './schema-fields.ts';

// postStart, preStop and the pod-level drain command: a command or an HTTP
// request, bounded by a timeout.

const HttpHookSchema = z.strictObject({
  url: z.string().meta({ description: 'http://HOST:PORT/PATH', examples: ['http://127.0.0.1:15000/drain_listeners'] }),
  method: z
    .string()
    .optional()
    .meta({
      description: `${HTTP_METHODS.join(', ')}, in any case.`,
      default: DEFAULT_HOOK_HTTP_METHOD,
      examples: ['POST'],
    }),
});

export const HookSchema = z
  .strictObject({
    exec: CommandSchema.optional().meta({ description: "Run with the process's env and cwd; exit 0 is success." }),
    http: HttpHookSchema.optional().meta({ description: 'An HTTP request to a process in the container.' }),
    timeout: duration('Bound on the hook; it counts as failed past it.', DEFAULT_HOOK_TIMEOUT_MS).optional(),
  })
  .superRefine(exactlyOneOf(['exec', 'http']))
  .meta({ oneOf: [{ required: ['exec'] }, { required: ['http'] }] });

export type RawHook = z.infer<typeof HookSchema>;
