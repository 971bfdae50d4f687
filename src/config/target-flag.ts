import type { Origin, Report } from './problem.ts';
import type { Result } from './result.ts';

// Flags that set one field of a named process: --ready NAME=PROBE,
// --restart NAME=POLICY, --stop-signal NAME=SIGNAL. check-flag-targets.ts
// checks the names once every process is known.

export interface TargetFlag<Value> {
  readonly flag: string;
  readonly name: string;
  /** Undefined when the value has problems, already reported. */
  readonly value: Value | undefined;
  readonly origin: Origin;
}

export interface TargetFlagSyntax<Value> {
  readonly flag: string;
  /** e.g. "NAME=PROBE, e.g. --ready proxy=http://127.0.0.1:15021/healthz/ready" */
  readonly expected: string;
  readonly parse: (text: string) => Result<Value>;
}

export function normalizeTargetFlags<Value>(
  values: readonly string[],
  syntax: TargetFlagSyntax<Value>,
  report: Report,
): TargetFlag<Value>[] {
  return values.flatMap((text) => {
    const origin = flagOrigin(syntax.flag, text);
    const assignment = splitAssignment(text);
    if (assignment === undefined) {
      report(origin, `expected ${syntax.expected}`);
      return [];
    }
    const [name, valueText] = assignment;
    const value = syntax.parse(valueText);
    if (!value.ok) report(origin, value.message);
    return [{ flag: syntax.flag, name, value: value.ok ? value.value : undefined, origin }];
  });
}

/** NAME=VALUE split at the first "=", so the value may hold more. */
export function splitAssignment(text: string): [string, string] | undefined {
  const index = text.indexOf('=');
  return index < 0 ? undefined : [text.slice(0, index), text.slice(index + 1)];
}

export function flagOrigin(flag: string, value: string): Origin {
  return { kind: 'flag', flag, value };
}
