// Prometheus' text exposition format (version 0.0.4), written by hand. A kept
// library (prom-client 15) was measured for this: bundled, it adds 68 KB to the
// bundle, 32-105 ms to evaluate and 10.8 MiB of RSS, for six families a
// scrape rebuilds from one snapshot anyway. This formatter takes about 12 µs
// per scrape of four processes and no measurable memory; it is checked against
// Prometheus' own Python client parser in the tests.

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type MetricType = 'gauge' | 'counter';

export interface MetricSample {
  readonly labels?: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface MetricFamily {
  /** [a-zA-Z_:][a-zA-Z0-9_:]*; a counter's ends in _total. */
  readonly name: string;
  readonly help: string;
  readonly type: MetricType;
  readonly samples: readonly MetricSample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** The families as one exposition, each with its HELP and TYPE; a family without samples still declares itself. */
export function formatPrometheusText(families: readonly MetricFamily[]): string {
  let text = '';
  for (const family of families) {
    // Names come from our own code, never from input: a bad one is a bug here.
    if (!METRIC_NAME.test(family.name)) throw new Error(`invalid metric name ${JSON.stringify(family.name)}`);
    text += `# HELP ${family.name} ${escapeHelp(family.help)}\n# TYPE ${family.name} ${family.type}\n`;
    for (const sample of family.samples) text += `${family.name}${formatLabels(sample.labels)} ${formatValue(sample.value)}\n`;
  }
  return text;
}

function formatLabels(labels: Readonly<Record<string, string>> | undefined): string {
  if (labels === undefined) return '';
  const pairs = Object.entries(labels).map(([name, value]) => {
    if (!LABEL_NAME.test(name) || name.startsWith('__')) throw new Error(`invalid label name ${JSON.stringify(name)}`);
    return `${name}="${escapeLabelValue(value)}"`;
  });
  return pairs.length === 0 ? '' : `{${pairs.join(',')}}`;
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(value);
}

/** In HELP, only backslash and newline are escaped. */
function escapeHelp(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('\n', '\\n');
}

/** In a label value, backslash, double quote and newline. */
function escapeLabelValue(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');
}
