import * as z from 'zod';
import { CommandSchema } from './command-schema.ts';
import { PROBE_KINDS } from './literals.ts';
import { exactlyOneOf, wholeNumber } from './schema-fields.ts';
import { HTTP_STATUS_RANGE, PORT_RANGE } from './whole-number.ts';

// A probe, for readiness and liveness: the string shorthand shared with
// `--ready`, or a mapping with exactly one key naming its kind.

const TcpProbeSchema = z.strictObject({
  host: z.string().meta({ description: 'A host name or address; IPv6 with or without brackets.' }),
  port: wholeNumber('1 to 65535.', PORT_RANGE),
});

const HttpProbeSchema = z.strictObject({
  url: z.string().meta({ description: 'http://HOST:PORT/PATH', examples: ['http://127.0.0.1:15021/healthz/ready'] }),
  headers: z.record(z.string(), z.string()).optional().meta({ description: 'Request headers.' }),
  expectStatus: z
    .array(wholeNumber('An HTTP status.', HTTP_STATUS_RANGE))
    .min(1)
    .optional()
    .meta({ description: 'The statuses that pass; any 2xx or 3xx when left out.', examples: [[200, 204]] }),
});

export const ProbeObjectSchema = z
  .strictObject({
    tcp: TcpProbeSchema.optional().meta({ description: 'Passes when a TCP connection opens.' }),
    http: HttpProbeSchema.optional().meta({ description: 'Passes on an expected status.' }),
    exec: CommandSchema.optional().meta({ description: 'Passes when the command exits 0.' }),
    log: z.string().optional().meta({
      description: "Readiness only: passes once a line of the process's stdout or stderr matches this JavaScript RegExp.",
    }),
    file: z.string().optional().meta({ description: 'Passes while the file exists.' }),
  })
  .superRefine(exactlyOneOf(PROBE_KINDS))
  .meta({ minProperties: 1, maxProperties: 1 });

export const ProbeSchema = z.union([
  z.string().meta({
    description: 'tcp://HOST:PORT, http://HOST:PORT/PATH (2xx/3xx is success), exec:CMD (exit 0 is success), log:REGEX or file:PATH',
    examples: [
      'tcp://127.0.0.1:15000',
      'http://127.0.0.1:15021/healthz/ready',
      'exec:pg_isready -h 127.0.0.1',
      'log:ready to accept connections',
      'file:/tmp/ready',
    ],
  }),
  ProbeObjectSchema,
]);

export type RawProbe = z.infer<typeof ProbeSchema>;
