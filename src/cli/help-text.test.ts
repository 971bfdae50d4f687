import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES } from './command-names.ts';
import { parseArgs } from './parse-args.ts';

// What a new user reads first: the help of a run and of the webhook, and the
// pages that repeat its lists.

const NO_ENV = {};

function helpOf(argv: string[]): string {
  const command = parseArgs(argv, NO_ENV);
  if (command.kind !== 'exit' || command.code !== 0) throw new Error(`${argv.join(' ')} showed no help`);
  // Commander wraps descriptions at 80 columns: compare the words.
  return command.output.replaceAll(/\s+/g, ' ');
}

describe('--help', () => {
  it('names every exit code, 1 (a sidecar that never got ready) included', () => {
    const help = helpOf(['--help']);
    expect(help).toContain('1 when a sidecar or external never got ready');
    for (const code of ['128+N', '127', '126', '69', '2 for a usage or configuration error', '70']) expect(help).toContain(code);
  });

  it('gives the defaults of --restart: always for a sidecar, never for an init step and the app', () => {
    expect(helpOf(['--help'])).toContain('always, on-failure or never (default: always for a sidecar, never for an init step and the app)');
  });

  it('lists every command as a word an app of that name needs -- before, from the one table the parser uses', () => {
    expect(COMMAND_NAMES).toEqual(['validate', 'plan', 'install', 'version', 'ctl', 'webhook', 'schema']);
    expect(helpOf(['--help'])).toContain(
      'Put -- before an app whose name starts with "-" or is "validate", "plan", "install", "version", "ctl", "webhook" or "schema".',
    );
    // The pages that repeat the list say the same, each time they repeat it.
    const whole = `${COMMAND_NAMES.slice(0, -1)
      .map((name) => `\`${name}\``)
      .join(', ')} or \`${COMMAND_NAMES.at(-1)}\``;
    for (const page of ['README.md', 'docs/configuration.md', 'docs/troubleshooting.md']) {
      const text = readFileSync(new URL(`../../${page}`, import.meta.url), 'utf8').replaceAll(/\s+/g, ' ');
      const lists = [...text.matchAll(/`validate`, `plan`(, `[a-z]+`)*,? (and|or) `[a-z]+`/g)].map(([list]) => list);
      for (const list of lists) expect(list, page).toBe(whole);
      if (page !== 'README.md') expect(lists.length, page).toBeGreaterThan(0);
    }
  });

  it('the usage in docs/configuration.md lists -V/--version and -h/--help', () => {
    const text = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    expect(text).toContain('\nsidecar-init -V | --version [--verbose]\n');
    expect(text).toContain('\nsidecar-init -h | --help\n');
  });
});

describe('webhook --help', () => {
  it('names the label its configuration selects pods on, beside the annotation of the same name', () => {
    const help = helpOf(['webhook', '--help']);
    expect(help).toContain('objectSelector is the label sidecar-init.io/inject: "true", so a pod needs that label to be reviewed at all');
    // And the example configuration does select on it.
    const configuration = readFileSync(new URL('../../examples/k8s/webhook/webhook.yaml', import.meta.url), 'utf8');
    expect(configuration).toMatch(/objectSelector:\s+matchLabels:\s+sidecar-init\.io\/inject: "true"/);
  });
});
