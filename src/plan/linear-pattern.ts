// A pattern sidecar-init runs on its only thread against text another process
// controls: a `log:` readiness pattern against every line a sidecar prints, a
// `cmdline:` matcher against the command line of every process in the pod.
// With V8's usual backtracking engine a pattern like ^(a+)+$ takes exponential
// time on a line of a's ending in '!', and PID 1 would stop answering signals
// while it runs. So every such pattern is compiled for V8's linear-time engine
// (the `l` flag): matching then costs time proportional to the text, whatever
// the pattern. Config validation and the code that matches both compile
// through here, so a pattern that passes validation is exactly the one that runs.

const LINEAR = 'l';
/** The largest counted repetition ({n} or {n,m}) the linear engine accepts. */
const MAX_LINEAR_REPETITION = 16;

/** A pattern as written and compiled for the linear-time engine: compiled once, when the plan is built. */
export interface LinearPattern {
  readonly source: string;
  readonly regex: RegExp;
}

export type CompiledPattern = { readonly ok: true; readonly pattern: LinearPattern } | { readonly ok: false; readonly message: string };

/** Where a pattern is used, for its messages. */
export interface PatternUse {
  /** Put before a syntax error ('log probe: '), or '' where the field's path already says it. */
  readonly prefix: string;
  /** The whole message for an empty pattern, with an example. */
  readonly empty: string;
}

export const LOG_PATTERN: PatternUse = { prefix: 'log probe: ', empty: 'log: needs a pattern, e.g. log:listening on port \\d+' };
export const CMDLINE_PATTERN: PatternUse = { prefix: '', empty: 'cmdline needs a regular expression, e.g. cmdline:linkerd2-proxy' };

let linearEngineEnabled = false;

/**
 * V8 accepts the `l` flag only once its experimental engine is switched on;
 * switching it on changes no other RegExp. Done here, right before the first
 * compile that needs it, rather than as a side effect of importing a module.
 * node:v8 is loaded here too, not imported: it brings Node's heap utilities
 * and streams with it, which a plan without patterns never needs (measured
 * with bench/start-profile.ts: Node's built-in modules are the largest part
 * of a start).
 */
function enableLinearEngine(): void {
  if (linearEngineEnabled) return;
  process.getBuiltinModule('node:v8').setFlagsFromString('--enable-experimental-regexp-engine');
  linearEngineEnabled = true;
}

/**
 * Compiles a pattern (a JavaScript RegExp source, no flags) for the
 * linear-time engine, or says why it cannot be and how to rewrite it.
 */
export function compileLinearPattern(source: string, use: PatternUse): CompiledPattern {
  if (source === '') return { ok: false, message: use.empty };
  try {
    // First without the flag: a syntax error is reported as such.
    new RegExp(source);
  } catch (error) {
    return { ok: false, message: `${use.prefix}${error instanceof Error ? error.message : String(error)}` };
  }
  enableLinearEngine();
  try {
    // No `g` or `y`: test() keeps no lastIndex between texts.
    return { ok: true, pattern: { source, regex: new RegExp(source, LINEAR) } };
  } catch {
    return { ok: false, message: `${use.prefix}${JSON.stringify(source)} ${explainNotLinear(source)}` };
  }
}

/**
 * Why the linear engine refused a pattern that is otherwise valid, and how to
 * rewrite it. Recognised by its source, which is good enough for a message:
 * the refusal itself comes from V8.
 */
function explainNotLinear(pattern: string): string {
  const why = 'cannot be matched in linear time, and sidecar-init only runs patterns that can (a slow pattern would stall PID 1)';
  if (/\\[1-9]|\\k</.test(pattern)) {
    return `uses a backreference (\\1 or \\k<name>), which ${why}; match the repeated text itself instead`;
  }
  if (/\(\?[=!]/.test(pattern)) {
    return `uses a lookahead ((?=…) or (?!…)), which ${why}; match the following text itself instead`;
  }
  const counts = [...pattern.matchAll(/\{(\d+)(?:,(\d*))?\}/g)].flatMap((match) => [Number(match[1]), Number(match[2] ?? 0)]);
  if (counts.some((count) => count > MAX_LINEAR_REPETITION)) {
    return (
      `has a counted repetition above ${MAX_LINEAR_REPETITION} ({n} or {n,m}), which ${why}; ` +
      `use + or * instead (e.g. \\d+ for \\d{1,64})`
    );
  }
  return `${why}; avoid backreferences, lookaheads, inline modifiers such as (?i:…) and counted repetitions above ${MAX_LINEAR_REPETITION}`;
}
