import {
  ENV_PREFIX,
  GLOBAL_OPTION_NAMES,
  GLOBAL_OPTIONS,
  type GivenOptions,
  type GlobalOption,
  optionVariable,
} from '../config/global-options.ts';
import { closestMatch } from '../support/closest-match.ts';
import { NATIVE_DIR_ENV } from '../os/embedded-addon.ts';
import { NATIVE_ADDON_ENV } from '../os/native.ts';
import { assertNever } from '../plan/assert-never.ts';

// SIDECAR_INIT_<OPTION>: every option that is not about one named process can
// come from the environment, which is how a pod spec or an image sets defaults
// without rewriting the entrypoint's arguments. A flag wins over its
// variable, the variable over the file; that order is kept by handing the
// variable's value to config as if it were the flag (config puts flags over
// the file), with the variable's name for messages.
//
// A name under the prefix that sidecar-init does not read is refused, as an
// unknown key of the file is: SIDECAR_INIT_GRACES=5s would otherwise leave the
// grace at its default without a word. The prefix is the product's alone:
// sidecar-init's own build and tests name their variables outside it
// (TEST_SIDECAR_INIT_BIN, TEST_SIDECAR_INIT_RUN, BUILD_SIDECAR_INIT_NODE), so
// nothing here needs to know them.

export const CONFIG_ENV = 'SIDECAR_INIT_CONFIG';

/** The variables under the prefix that are not options: the config file and where the native addon comes from. */
const OTHER_VARIABLES = [CONFIG_ENV, NATIVE_ADDON_ENV, NATIVE_DIR_ENV];

export type EnvOptionsResult =
  | { readonly ok: true; readonly options: GivenOptions }
  /** One line per problem, each naming the variable. */
  | { readonly ok: false; readonly problems: readonly string[] };

const TRUE_WORDS = ['true', '1'];
const FALSE_WORDS = ['false', '0'];

/** What the environment says, option by option; a variable that is empty counts as not set. */
export function readEnvOptions(env: NodeJS.ProcessEnv): EnvOptionsResult {
  const problems = unknownVariables(env);
  const options: Partial<Record<GlobalOption, unknown>> = {};
  for (const option of GLOBAL_OPTION_NAMES) {
    const name = optionVariable(option);
    const text = env[name];
    if (text === undefined || text === '') continue;
    const { form } = GLOBAL_OPTIONS[option];
    switch (form) {
      case 'value':
        options[option] = text;
        break;
      case 'list':
        // Comma-separated, as the flag would be repeated.
        options[option] = text.split(',').map((item) => item.trim());
        break;
      case 'switch': {
        const word = text.toLowerCase();
        if (TRUE_WORDS.includes(word) || FALSE_WORDS.includes(word)) options[option] = TRUE_WORDS.includes(word);
        else problems.push(`${name}=${text}: use true or false (or 1, 0)`);
        break;
      }
      default:
        assertNever(form);
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, options: options as GivenOptions };
}

function unknownVariables(env: NodeJS.ProcessEnv): string[] {
  const known = [...GLOBAL_OPTION_NAMES.map(optionVariable), ...OTHER_VARIABLES];
  return Object.keys(env)
    .filter((name) => name.startsWith(ENV_PREFIX) && !known.includes(name))
    .sort()
    .map((name) => {
      const suggestion = closestMatch(name, known);
      return (
        `${name} is not a variable sidecar-init reads` +
        (suggestion === undefined ? '' : ` (did you mean ${suggestion}?)`) +
        `; unset it, or use one of ${known.join(', ')}`
      );
    });
}
