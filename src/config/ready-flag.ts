import type { ProbeSpec, ReadinessSpec } from '../plan/plan.ts';
import { closestMatch } from '../support/closest-match.ts';
import { parsePositiveDuration } from './duration.ts';
import { listAlternatives, quote } from '../support/message-text.ts';
import { parseProbe, READINESS_TIMING_FIELDS, READINESS_TIMING_NAMES, type ReadinessTiming } from './probe.ts';
import { fail, ok, type Result } from '../support/result.ts';

// --ready NAME=PROBE[,KEY=DURATION]...: a probe and the file's readiness
// timings, so that a command line alone (a manifest's, the webhook's
// sidecar-init.io/args) can give a slow sidecar a longer deadline. A probe's
// own text may hold commas (an exec: command, a log: pattern, a URL's query),
// so options are read from the end: each trailing ",KEY=VALUE" whose KEY is a
// timing is an option, and the first trailing piece that is not ends them;
// everything before it is the probe, commas and all. A piece whose value holds
// a quote, a space or a backslash is never an option, so a quoted exec word
// ('a,deadline=2m') stays the command's. A piece whose key is a letter or two
// from a timing is refused as a typo rather than sent to the probe.
// With only options (NAME=deadline=2m), the target keeps its probe: the file's
// or its preset's.

export interface ReadyFlagValue {
  /** Undefined when only options were given: the target's probe stays. */
  readonly probe: ProbeSpec | undefined;
  readonly timings: Readonly<Partial<Record<ReadinessTiming, number>>>;
}

/** A piece that may be an option: a word, "=", and a value with no quote, space, backslash or comma. */
const OPTION_PIECE = /^([A-Za-z]+)=([^\s'"\\,]*)$/;

const OPTIONS_HINT = `after the probe, options are ,KEY=DURATION with KEY one of ${listAlternatives(READINESS_TIMING_NAMES)}, e.g. --ready proxy=tcp://127.0.0.1:15000,deadline=2m,period=500ms`;

export function parseReadyFlag(text: string): Result<ReadyFlagValue> {
  const options: [ReadinessTiming, string][] = [];
  let probeText = text;
  for (;;) {
    const comma = probeText.lastIndexOf(',');
    // Options only: the whole text is KEY=VALUE pieces.
    const piece = comma < 0 ? probeText : probeText.slice(comma + 1);
    const option = readOption(piece);
    if (option.kind === 'typo') return fail(option.message);
    if (option.kind === 'none') break;
    options.unshift([option.key, option.value]);
    if (comma < 0) {
      probeText = '';
      break;
    }
    probeText = probeText.slice(0, comma);
  }
  const timings: Partial<Record<ReadinessTiming, number>> = {};
  for (const [key, value] of options) {
    if (timings[key] !== undefined) return fail(`${key} is given twice; give it once`);
    const ms = parsePositiveDuration(value);
    if (!ms.ok) return fail(`${key}=${value}: ${ms.message}`);
    timings[key] = ms.value;
  }
  if (probeText === '' && options.length > 0) return ok({ probe: undefined, timings });
  const probe = parseProbe(probeText);
  if (!probe.ok) return options.length > 0 || !probeText.includes(',') ? probe : fail(`${probe.message}; ${OPTIONS_HINT}`);
  return ok({ probe: probe.value, timings });
}

type Option =
  | { readonly kind: 'option'; readonly key: ReadinessTiming; readonly value: string }
  | { readonly kind: 'typo'; readonly message: string }
  | { readonly kind: 'none' };

function readOption(piece: string): Option {
  const [, key = '', value = ''] = OPTION_PIECE.exec(piece) ?? [];
  if (key === '') return { kind: 'none' };
  if (isTiming(key)) return { kind: 'option', key, value };
  const meant = closestMatch(key, READINESS_TIMING_NAMES);
  if (meant === undefined) return { kind: 'none' };
  return { kind: 'typo', message: `${quote(key)} is not an option of --ready; did you mean ${meant}? ${OPTIONS_HINT}` };
}

function isTiming(key: string): key is ReadinessTiming {
  return (READINESS_TIMING_NAMES as readonly string[]).includes(key);
}

/** The readiness with the flag's probe and timings over the target's; undefined probe: the target's stays. */
export function applyReadyFlag(
  readiness: ReadinessSpec | undefined,
  value: ReadyFlagValue,
  defaults: (probe: ProbeSpec) => ReadinessSpec,
): ReadinessSpec | undefined {
  const probe = value.probe ?? readiness?.probe;
  if (probe === undefined) return readiness;
  let result: ReadinessSpec = readiness === undefined ? defaults(probe) : { ...readiness, probe };
  for (const key of READINESS_TIMING_NAMES) {
    const ms = value.timings[key];
    if (ms !== undefined) result = { ...result, [READINESS_TIMING_FIELDS[key]]: ms };
  }
  return result;
}

/** Options without a probe need one to apply to: the file's or the preset's. */
export function checkReadyFlagTarget(value: ReadyFlagValue, targetHasProbe: boolean, name: string): string | undefined {
  if (value.probe !== undefined || targetHasProbe) return undefined;
  return `${quote(name)} has no readiness probe to time; give one before the options, e.g. --ready ${name}=tcp://127.0.0.1:15000,deadline=2m`;
}
