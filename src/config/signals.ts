import { constants } from 'node:os';
import * as z from 'zod';
import { HANDLED_SIGNALS, signalOfNumber } from '../plan/signal-sets.ts';
import { fail, ok, type Result } from '../support/result.ts';
import { quote } from '../support/message-text.ts';
import { didYouMeanSignal } from '../support/signal-suggestion.ts';
import { parsedWith, type RelatedKey } from './schema-fields.ts';
import { builtOnFirstUse } from '../support/built-on-first-use.ts';

// Signals are given by name, as `kill -l` lists them, in any case and with or
// without the SIG prefix: quit, QUIT and SIGQUIT are all SIGQUIT. Numbers are
// refused, they differ between architectures and names do not; only a rewrite
// takes them too, as dumb-init's --rewrite 15:3 does (parseRewriteSignal).

const SIGNAL_HINT = 'use a name such as SIGTERM, SIGQUIT or INT (any case, SIG optional)';

export function parseSignal(text: string): Result<NodeJS.Signals> {
  if (/^\d+$/.test(text)) return fail(signalNumberMessage(text));
  const upper = text.toUpperCase();
  const name = upper.startsWith('SIG') ? upper : `SIG${upper}`;
  if (!Object.hasOwn(constants.signals, name)) return fail(`${quote(text)} is not a signal${didYouMeanSignal(text)}; ${SIGNAL_HINT}`);
  return ok(name as NodeJS.Signals);
}

/** For a number where a signal belongs, e.g. `stopSignal: 3` in YAML. */
function signalNumberMessage(text: string): string {
  return `${text} is a signal number; give the signal by name, e.g. SIGQUIT`;
}

/** Signals that never end a process: sent as its stop signal, it would only wait out its grace. */
const NOT_STOPPING: Readonly<Partial<Record<NodeJS.Signals, string>>> = {
  SIGCHLD: 'is ignored unless handled, and means "a child exited"',
  SIGCONT: 'is ignored unless handled, and means "continue"',
  SIGURG: 'is ignored unless handled, and means "urgent socket data"',
  SIGSTOP: 'pauses a process instead of ending it',
  SIGTSTP: 'pauses a process instead of ending it',
  SIGTTIN: 'pauses a process instead of ending it',
  SIGTTOU: 'pauses a process instead of ending it',
};

/** SIGNAL of `stopSignal:` and `--stop-signal NAME=SIGNAL`. */
export function parseStopSignal(text: string): Result<NodeJS.Signals> {
  const signal = parseSignal(text);
  const why = signal.ok ? NOT_STOPPING[signal.value] : undefined;
  if (why === undefined) return signal;
  return fail(`${signal.ok ? signal.value : text} ${why}, so it cannot stop a process; use e.g. SIGTERM, SIGINT or SIGQUIT`);
}

export function stopSignalField(description: string) {
  const error = (issue: { input?: unknown }) => (typeof issue.input === 'number' ? signalNumberMessage(String(issue.input)) : undefined);
  return parsedWith(z.string({ error }).meta({ description, examples: ['SIGQUIT', 'INT'] }), parseStopSignal);
}

// Signal rewriting (dumb-init's --rewrite): `rewrite: {SIGTERM: SIGQUIT}` in
// the file, `--rewrite SIGTERM:SIGQUIT` on the command line; `none` drops the
// signal. Numbers are taken as dumb-init takes them, `--rewrite 15:3` and
// `{15: 3}`, with 0 to drop (dumb-init's -r 1:0). Flags override the file
// signal by signal (load-plan.ts).

const DROP = 'none';
/** dumb-init's target for a dropped signal: signal 0, which is no signal. */
const DROP_NUMBER = 0;

/**
 * A signal of a rewrite: a name, as parseSignal reads it, or its Linux number
 * (15 is SIGTERM), the same on x64 and arm64, the two sidecar-init runs on:
 * both use the kernel's generic numbering, in which dumb-init's were written.
 */
function parseRewriteSignal(text: string): Result<NodeJS.Signals> {
  if (!/^\d+$/.test(text)) return parseSignal(text);
  const name = signalOfNumber(Number(text));
  if (name !== undefined) return ok(name);
  return fail(`${text} is not a signal number Linux names (1 to 31); give a number such as 15 or a name such as SIGTERM`);
}

/**
 * The signals sidecar-init listens for (those that start termination and those
 * it passes on to the app): only these can be rewritten.
 */
export const REWRITABLE_SIGNALS = HANDLED_SIGNALS;

const NOT_REWRITABLE: Readonly<Partial<Record<NodeJS.Signals, string>>> = {
  SIGKILL: 'cannot be caught',
  SIGSTOP: 'cannot be caught',
  SIGCHLD: 'tells sidecar-init that a process exited and is never passed on',
};

interface Rewrite {
  readonly from: NodeJS.Signals;
  readonly to: NodeJS.Signals | null;
}

function parseRewrite(fromText: string, toText: string): Result<Rewrite> {
  const from = parseRewriteSignal(fromText);
  if (!from.ok) return from;
  if (!REWRITABLE_SIGNALS.includes(from.value)) {
    const why = NOT_REWRITABLE[from.value] ?? 'is not passed on to the app';
    return fail(`${from.value} ${why}, so it cannot be rewritten`);
  }
  if (toText.toLowerCase() === DROP || (/^\d+$/.test(toText) && Number(toText) === DROP_NUMBER)) return ok({ from: from.value, to: null });
  const to = parseRewriteSignal(toText);
  if (!to.ok) return fail(`${to.message}, or none (or 0) to drop ${from.value}`);
  return ok({ from: from.value, to: to.value });
}

/**
 * One rewrite per signal (TERM and SIGTERM are the same key); `problem` gets
 * the index of each bad rewrite and, for a repeat, the index of the first.
 */
function collectRewrites(rewrites: readonly Result<Rewrite>[], problem: (index: number, message: string, first?: number) => void) {
  const result: Partial<Record<NodeJS.Signals, NodeJS.Signals | null>> = {};
  const first = new Map<NodeJS.Signals, number>();
  rewrites.forEach((rewrite, index) => {
    const earlier = rewrite.ok ? first.get(rewrite.value.from) : undefined;
    if (!rewrite.ok) problem(index, rewrite.message);
    else if (earlier !== undefined) problem(index, `${rewrite.value.from} is already rewritten`, earlier);
    else {
      first.set(rewrite.value.from, index);
      result[rewrite.value.from] = rewrite.value.to;
    }
  });
  return result;
}

const NO_REWRITE_TARGET = 'has no value; write none (or 0) to drop the signal';

/**
 * `rewrite:` of the file, parsed in one pass: each problem at its key, every
 * key checked even when another has no value.
 */
export const RewriteSchema = builtOnFirstUse(() =>
  z
    .record(z.string(), z.unknown())
    // On the record, not the result: the JSON Schema describes what is written, and zod leaves out examples of a transform.
    .meta({
      description:
        'Signals rewritten before they reach the app, by name (SIGTERM: SIGQUIT) or by number as dumb-init takes them (15: 3); none or 0 drops the signal.',
      examples: [
        { SIGTERM: 'SIGQUIT', SIGHUP: 'none' },
        { 15: 3, 1: 0 },
      ],
      additionalProperties: { type: ['string', 'integer'] },
    })
    .transform((raw, context) =>
      fileRewrites(raw, (key, message, firstKey) => {
        const params: RelatedKey | undefined = firstKey === undefined ? undefined : { relatedKey: firstKey };
        context.issues.push({ code: 'custom', message, input: raw[key], path: [key], params });
      }),
    )
    .optional(),
);

function fileRewrites(raw: Readonly<Record<string, unknown>>, problem: (key: string, message: string, firstKey?: string) => void) {
  const pairs = Object.entries(raw);
  return collectRewrites(
    pairs.map(([from, to]) => {
      if (to === null) return fail<Rewrite>(NO_REWRITE_TARGET);
      if (typeof to === 'string') return parseRewrite(from, to);
      // YAML reads `15: 3` as a number; a fraction or a negative is no signal, and says so as text would.
      if (typeof to === 'number' && Number.isSafeInteger(to) && to >= 0) return parseRewrite(from, String(to));
      return fail<Rewrite>(`expected a signal name or number, or none, got ${JSON.stringify(to)}`);
    }),
    (index, message, first) => problem(pairs[index]![0], message, first === undefined ? undefined : pairs[first]![0]),
  );
}

const REWRITE_FORM = 'expected FROM:TO, e.g. --rewrite SIGTERM:SIGQUIT or 15:3, or --rewrite SIGHUP:none (1:0) to drop a signal';

/** Every `--rewrite FROM:TO`, in command-line order; `problem` gets the index of each bad value. */
export function parseRewriteFlags(values: readonly string[], problem: (index: number, message: string, first?: number) => void) {
  const rewrites = values.map((value) => {
    const colon = value.indexOf(':');
    return colon < 0 ? fail<Rewrite>(REWRITE_FORM) : parseRewrite(value.slice(0, colon), value.slice(colon + 1));
  });
  return collectRewrites(rewrites, problem);
}

/**
 * SIGNAL of --parent-death-signal: one sidecar-init handles, since it arrives
 * as if sent to sidecar-init: SIGTERM or SIGINT starts the teardown, another is
 * passed on to the app.
 */
export function parseParentDeathSignal(text: string): Result<NodeJS.Signals> {
  const signal = parseSignal(text);
  if (!signal.ok || HANDLED_SIGNALS.includes(signal.value)) return signal;
  const why =
    signal.value === 'SIGKILL'
      ? 'SIGKILL would end sidecar-init at once, leaving the processes it started running'
      : `sidecar-init does not handle ${signal.value}`;
  return fail(`${why}; use SIGTERM (a teardown, as for a pod's stop) or a signal passed on to the app, such as SIGHUP`);
}

/** The field of `parentDeathSignal:`, a name as parseParentDeathSignal reads it. */
export function parentDeathSignalField(description: string) {
  const error = (issue: { input?: unknown }) => (typeof issue.input === 'number' ? signalNumberMessage(String(issue.input)) : undefined);
  return parsedWith(z.string({ error }).meta({ description, examples: ['SIGTERM'] }), parseParentDeathSignal);
}
