import { describe, expect, it } from 'vitest';
import { parsePrometheusText } from '../../test/support/prometheus-parser.ts';
import { formatPrometheusText } from './prometheus-text.ts';

describe('formatPrometheusText', () => {
  it('writes HELP, TYPE and samples a Prometheus parser reads back exactly', () => {
    const text = formatPrometheusText([
      { name: 'jobs_running', help: 'Jobs running now.', type: 'gauge', samples: [{ value: 3 }] },
      {
        name: 'jobs_done_total',
        help: 'Jobs done.',
        type: 'counter',
        samples: [
          { labels: { name: 'a', role: 'sidecar' }, value: 0 },
          { labels: { name: 'b', role: 'app' }, value: 12 },
        ],
      },
    ]);
    expect(text).toBe(
      [
        '# HELP jobs_running Jobs running now.',
        '# TYPE jobs_running gauge',
        'jobs_running 3',
        '# HELP jobs_done_total Jobs done.',
        '# TYPE jobs_done_total counter',
        'jobs_done_total{name="a",role="sidecar"} 0',
        'jobs_done_total{name="b",role="app"} 12',
        '',
      ].join('\n'),
    );
    expect(parsePrometheusText(text)).toEqual([
      { name: 'jobs_running', type: 'gauge', help: 'Jobs running now.', samples: [{ name: 'jobs_running', labels: {}, value: 3 }] },
      {
        name: 'jobs_done',
        type: 'counter',
        help: 'Jobs done.',
        samples: [
          { name: 'jobs_done_total', labels: { name: 'a', role: 'sidecar' }, value: 0 },
          { name: 'jobs_done_total', labels: { name: 'b', role: 'app' }, value: 12 },
        ],
      },
    ]);
  });

  it('escapes label values and help so that quotes, backslashes and newlines survive', () => {
    const awkward = 'say "hi"\\n\nthere';
    const text = formatPrometheusText([
      { name: 'awkward', help: 'back\\slash and\nnewline', type: 'gauge', samples: [{ labels: { value: awkward }, value: 1 }] },
    ]);
    const [family] = parsePrometheusText(text);
    expect(family?.help).toBe('back\\slash and\nnewline');
    expect(family?.samples[0]?.labels).toEqual({ value: awkward });
  });

  it('writes fractions, NaN and infinities as Prometheus spells them', () => {
    const values = [0.25, 1e21, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
    const text = formatPrometheusText([
      { name: 'values', help: 'Values.', type: 'gauge', samples: values.map((value, index) => ({ labels: { i: String(index) }, value })) },
    ]);
    expect(parsePrometheusText(text)[0]?.samples.map((sample) => sample.value)).toEqual(values);
  });

  it('declares a family without samples', () => {
    const text = formatPrometheusText([{ name: 'nothing_total', help: 'Nothing yet.', type: 'counter', samples: [] }]);
    expect(parsePrometheusText(text)).toEqual([{ name: 'nothing', type: 'counter', help: 'Nothing yet.', samples: [] }]);
  });

  it('refuses a metric or label name the format cannot carry', () => {
    expect(() => formatPrometheusText([{ name: 'bad-name', help: '', type: 'gauge', samples: [] }])).toThrow(/invalid metric name/);
    expect(() => formatPrometheusText([{ name: 'ok', help: '', type: 'gauge', samples: [{ labels: { 'a-b': 'x' }, value: 1 }] }])).toThrow(
      /invalid label name/,
    );
  });

  it('is checked by a parser that does reject malformed text', () => {
    expect(() => parsePrometheusText('broken{name="a"b"} 1\n')).toThrow(/rejected/);
  });
});
