import { setFlagsFromString } from 'node:v8';

// A `log:` readiness pattern is tested against every line a sidecar prints,
// on the supervisor's only thread. With V8's usual backtracking engine a
// pattern like ^(a+)+$ takes exponential time on a line of a's ending in '!',
// and PID 1 would stop answering signals while it runs. So every pattern is
// compiled for V8's linear-time engine (the `l` flag): matching a line then
// costs time proportional to the line, whatever the pattern. The engine has
// to be switched on before the first `l` pattern is compiled; switching it on
// only makes V8 accept that flag, it changes no other RegExp.
setFlagsFromString('--enable-experimental-regexp-engine');

const LINEAR = 'l';
/** The largest counted repetition ({n} or {n,m}) the linear engine accepts. */
const MAX_LINEAR_REPETITION = 16;

export type CompiledLogPattern = { readonly ok: true; readonly regex: RegExp } | { readonly ok: false; readonly message: string };

/**
 * Compiles a `log:` pattern (a JavaScript RegExp source, no flags) for the
 * linear-time engine, or says why it cannot be and how to rewrite it. Config
 * validation and the log matcher both call this, so a pattern that passes
 * validation is exactly the one that runs.
 */
export function compileLogPattern(pattern: string): CompiledLogPattern {
  if (pattern === '') return { ok: false, message: 'log: needs a pattern, e.g. log:listening on port \\d+' };
  try {
    // First without the flag: a syntax error is reported as such.
    new RegExp(pattern);
  } catch (error) {
    return { ok: false, message: `log probe: ${error instanceof Error ? error.message : String(error)}` };
  }
  try {
    // No `g` or `y`: test() keeps no lastIndex between lines.
    return { ok: true, regex: new RegExp(pattern, LINEAR) };
  } catch {
    return { ok: false, message: `log probe: ${JSON.stringify(pattern)} ${explainNotLinear(pattern)}` };
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
