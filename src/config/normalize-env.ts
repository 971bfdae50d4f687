import { at, type Origin, type Report } from './problem.ts';
import { quote } from './result.ts';

/**
 * `env:` as strings. Numbers and booleans are accepted, as docker-compose users
 * expect; parse-yaml.ts has already replaced them with their text as written, so
 * `VERSION: 1.10` stays "1.10" rather than becoming "1.1".
 */
export function normalizeEnv(
  env: Readonly<Record<string, string | number | boolean | undefined>>,
  origin: Origin,
  report: Report,
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const text = String(value);
    if (name === '' || name.includes('=') || name.includes('\0')) {
      report(at(origin, name), `${quote(name)} is not a variable name; a name is not empty and has no "=" in it`);
    } else if (text.includes('\0')) {
      report(at(origin, name), 'the value contains a NUL character, which no environment can hold');
    } else {
      result[name] = text;
    }
  }
  return result;
}
