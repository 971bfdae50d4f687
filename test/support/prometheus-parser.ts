import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

// Prometheus text is checked by a real parser, not by our own reading of the
// format: the official Python client's (Debian: python3-prometheus-client,
// which .ci/run installs). It runs under Debian's python, where apt puts it.

const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

const SCRIPT = `
import json, math, sys
from prometheus_client.parser import text_string_to_metric_families
def value(v):
    if math.isnan(v): return 'NaN'
    if math.isinf(v): return '+Inf' if v > 0 else '-Inf'
    return repr(v)
families = [
    {'name': f.name, 'type': f.type, 'help': f.documentation,
     'samples': [{'name': s.name, 'labels': s.labels, 'value': value(s.value)} for s in f.samples]}
    for f in text_string_to_metric_families(sys.stdin.read())
]
print(json.dumps(families))
`;

export interface ParsedSample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

export interface ParsedFamily {
  /** As the parser names it: a counter's without its _total suffix. */
  readonly name: string;
  readonly type: string;
  readonly help: string;
  readonly samples: readonly ParsedSample[];
}

/** Parses an exposition; throws with the parser's own message when it is not valid. */
export function parsePrometheusText(text: string): ParsedFamily[] {
  let output: string;
  try {
    output = execFileSync(PYTHON, ['-c', SCRIPT], { input: text, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? error);
    if (stderr.includes("No module named 'prometheus_client'")) {
      throw new Error(`the Prometheus parser is missing: apt-get install python3-prometheus-client\n${stderr}`);
    }
    throw new Error(`Prometheus parser rejected the text:\n${stderr}`);
  }
  const families = JSON.parse(output) as (Omit<ParsedFamily, 'samples'> & {
    samples: (Omit<ParsedSample, 'value'> & { value: string })[];
  })[];
  return families.map((family) => ({
    ...family,
    samples: family.samples.map((sample) => ({ ...sample, value: parseValue(sample.value) })),
  }));
}

function parseValue(text: string): number {
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  return Number(text);
}
