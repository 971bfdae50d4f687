import { GLOBAL_OPTION_FLAGS, type GlobalOption } from '../config/cli-input.ts';

// SIDECAR_INIT_<OPTION>: every option that is not about one named process can
// come from the environment, which is how a pod spec or an image sets defaults
// without rewriting the entrypoint's arguments. A flag wins over its
// variable, the variable over the file; that order is kept by handing the
// variable's value to config as if it were the flag (config puts flags over
// the file), with the variable's name for messages.

export const ENV_PREFIX = 'SIDECAR_INIT_';

/** SIDECAR_INIT_GRACE for --grace, SIDECAR_INIT_LOG_LEVEL for --log-level. */
export function envVariable(option: GlobalOption): string {
  return `${ENV_PREFIX}${GLOBAL_OPTION_FLAGS[option].slice(2).replaceAll('-', '_').toUpperCase()}`;
}

/** What the environment says, option by option; a variable that is empty counts as not set. */
export interface EnvOptions {
  readonly grace?: string;
  readonly drain?: string;
  readonly logLevel?: string;
  readonly logFormat?: string;
  readonly statusAddr?: string;
  readonly terminationLog?: string;
  readonly control?: string;
  readonly output?: string;
  /** Comma-separated, as the flag would be repeated. */
  readonly rewrite?: readonly string[];
  readonly successCode?: readonly string[];
  readonly singleChild?: boolean;
}

export type EnvOptionsResult = { readonly ok: true; readonly options: EnvOptions } | { readonly ok: false; readonly message: string };

const SCALARS = [
  'grace',
  'drain',
  'logLevel',
  'logFormat',
  'statusAddr',
  'terminationLog',
  'control',
  'output',
] as const satisfies readonly GlobalOption[];
const LISTS = ['rewrite', 'successCode'] as const satisfies readonly GlobalOption[];
const TRUE_WORDS = ['true', '1'];
const FALSE_WORDS = ['false', '0'];

export function readEnvOptions(env: NodeJS.ProcessEnv): EnvOptionsResult {
  const options: { -readonly [Key in keyof EnvOptions]: EnvOptions[Key] } = {};
  const value = (option: GlobalOption): string | undefined => {
    const text = env[envVariable(option)];
    return text === undefined || text === '' ? undefined : text;
  };
  for (const option of SCALARS) {
    const text = value(option);
    if (text !== undefined) options[option] = text;
  }
  for (const option of LISTS) {
    const text = value(option);
    if (text !== undefined) options[option] = text.split(',').map((item) => item.trim());
  }
  const singleChild = value('singleChild');
  if (singleChild !== undefined) {
    const word = singleChild.toLowerCase();
    if (!TRUE_WORDS.includes(word) && !FALSE_WORDS.includes(word)) {
      return { ok: false, message: `${envVariable('singleChild')}=${singleChild}: use true or false (or 1, 0)` };
    }
    options.singleChild = TRUE_WORDS.includes(word);
  }
  return { ok: true, options };
}
