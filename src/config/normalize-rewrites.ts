import { isUncatchable, parseSignal } from './parse-signal.ts';
import type { Plan } from './plan.ts';
import { at, valueOrReport, type Origin, type Report } from './problem.ts';
import { fail, ok, type Result } from './result.ts';

// Signal rewriting (dumb-init's --rewrite, by name): `rewrite: {SIGTERM: SIGQUIT}`
// in the file, `--rewrite SIGTERM:SIGQUIT` on the command line; `none` drops
// the signal. Flags override the file signal by signal (build-plan.ts).

export type SignalRewrites = Plan['signalRewrites'];

const DROP = 'none';

interface Rewrite {
  readonly from: NodeJS.Signals;
  readonly to: NodeJS.Signals | null;
}

/** `rewrite:` of the file; each problem at its key. */
export function normalizeFileRewrites(raw: Readonly<Record<string, string | undefined>>, origin: Origin, report: Report): SignalRewrites {
  const rewrites = createRewriteList(report);
  for (const [from, to] of Object.entries(raw)) {
    if (to !== undefined) rewrites.add(parseRewrite(from, to), at(origin, from));
  }
  return rewrites.result;
}

/** Every `--rewrite FROM:TO`, in command-line order. */
export function normalizeRewriteFlags(values: readonly string[], report: Report): SignalRewrites {
  const rewrites = createRewriteList(report);
  for (const value of values) {
    const origin: Origin = { kind: 'flag', flag: '--rewrite', value };
    const colon = value.indexOf(':');
    if (colon < 0) report(origin, 'expected FROM:TO, e.g. --rewrite SIGTERM:SIGQUIT, or --rewrite SIGHUP:none to drop a signal');
    else rewrites.add(parseRewrite(value.slice(0, colon), value.slice(colon + 1)), origin);
  }
  return rewrites.result;
}

function parseRewrite(fromText: string, toText: string): Result<Rewrite> {
  const from = parseSignal(fromText);
  if (!from.ok) return from;
  if (isUncatchable(from.value)) return fail(`${from.value} cannot be caught, so it cannot be rewritten`);
  if (toText.toLowerCase() === DROP) return ok({ from: from.value, to: null });
  const to = parseSignal(toText);
  if (!to.ok) return fail(`${to.message}, or none to drop ${from.value}`);
  return ok({ from: from.value, to: to.value });
}

/** One rewrite per signal: TERM and SIGTERM are the same key. */
function createRewriteList(report: Report) {
  const result: Partial<Record<NodeJS.Signals, NodeJS.Signals | null>> = {};
  const first = new Map<NodeJS.Signals, Origin>();
  return {
    result,
    add(parsed: Result<Rewrite>, origin: Origin): void {
      const rewrite = valueOrReport(parsed, origin, report);
      if (rewrite === undefined) return;
      const earlier = first.get(rewrite.from);
      if (earlier !== undefined) {
        report(origin, `${rewrite.from} is already rewritten`, earlier);
        return;
      }
      first.set(rewrite.from, origin);
      result[rewrite.from] = rewrite.to;
    },
  };
}
