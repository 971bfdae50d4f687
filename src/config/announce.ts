import { resolve } from 'node:path';
import * as z from 'zod';
import { ANNOUNCED_STATES, type AnnouncedState, isAnnouncedState } from '../plan/announced-state.ts';
import { DEFAULTS, type UntilSpec } from '../plan/plan.ts';
import { fail, ok, type Result } from '../support/result.ts';
import { listAlternatives, quote } from '../support/message-text.ts';
import { mapping, oneOf, parsedWith } from './schema-fields.ts';
import { builtOnFirstUse } from '../support/built-on-first-use.ts';

// Containers of a pod that cannot share a PID namespace coordinate through
// files on a shared volume: `--announce FILE` keeps this run's state there,
// `--until FILE[=STATE]` ends this run once another's file reaches STATE, and
// an external `announced: FILE` is another container's sidecar-init, waited
// for and stopped through its file. Each FILE is resolved once, here, against
// the directory sidecar-init starts in, so the plan (and `plan`) shows the
// file a run uses.

const STATES = listAlternatives(ANNOUNCED_STATES);

/** FILE of --announce, --until and announced:FILE: a path, absolute or relative, made absolute. */
export function parseAnnouncedFile(text: string): Result<string> {
  if (text === '') return fail('needs a file path, e.g. /handoff/app (a volume the other containers mount too)');
  if (text.includes('\0')) return fail(`${quote(text)} cannot be a file path (it has a NUL byte)`);
  if (text.endsWith('/')) return fail(`${quote(text)} names a directory; give the file in it, e.g. ${text}app`);
  return ok(resolve(text));
}

function parseState(text: string): Result<AnnouncedState> {
  return isAnnouncedState(text) ? ok(text) : fail(`${quote(text)} is not an announced state; use ${STATES}`);
}

/**
 * --until FILE or FILE=STATE, split at the last "=": a path with "=" in its
 * last part is written as {file, state} in the config file.
 */
export function parseUntil(text: string): Result<UntilSpec> {
  const equals = text.lastIndexOf('=');
  const fileText = equals < 0 ? text : text.slice(0, equals);
  const file = parseAnnouncedFile(fileText);
  if (!file.ok) return file;
  if (equals < 0) return ok({ file: file.value, state: DEFAULTS.untilState });
  const state = parseState(text.slice(equals + 1));
  return state.ok ? ok({ file: file.value, state: state.value }) : fail(`${state.message} (after the last "=" of FILE=STATE)`);
}

export const AnnounceSchema = builtOnFirstUse(() => parsedWith(z.string(), parseAnnouncedFile));

const UntilObjectSchema = builtOnFirstUse(() =>
  mapping({
    file: parsedWith(z.string(), parseAnnouncedFile).meta({ description: 'The other container’s --announce file.' }),
    state: oneOf('an announced state', ANNOUNCED_STATES)
      .optional()
      .meta({ description: 'The state (or any later one) that ends this run.', default: DEFAULTS.untilState }),
  }).transform(({ file, state }): UntilSpec => ({ file, state: state ?? DEFAULTS.untilState })),
);

export const UntilSchema = builtOnFirstUse(() =>
  z.union([
    // On the string, not the transform: zod leaves a transformed field's examples out of the JSON Schema.
    parsedWith(z.string().meta({ description: 'FILE or FILE=STATE.', examples: ['/handoff/app', '/handoff/app=ready'] }), parseUntil),
    UntilObjectSchema(),
  ]),
);
