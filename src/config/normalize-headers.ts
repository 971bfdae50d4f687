import { at, type Origin, type Report } from './problem.ts';
import { quote } from './result.ts';

// Header names and values are checked when the plan is made, since Node's
// http would only refuse them at the first probe attempt.
// https://www.rfc-editor.org/rfc/rfc9110#name-field-names (a token)
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// What Node's http accepts in a value: tab, visible ASCII and obs-text; no CR, LF or NUL.
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** The headers, or undefined (reported) when any is unusable. */
export function normalizeHeaders(
  headers: Readonly<Record<string, string | undefined>>,
  origin: Origin,
  report: Report,
): Record<string, string> | undefined {
  const result: Record<string, string> = {};
  let failed = false;
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (!TOKEN.test(name)) {
      report(at(origin, name), `${quote(name)} is not a header name; use letters, digits and !#$%&'*+-.^_\`|~`);
      failed = true;
    } else if (!FIELD_VALUE.test(value)) {
      report(at(origin, name), 'the value contains a control character (a line break?), which a header cannot hold');
      failed = true;
    } else {
      result[name] = value;
    }
  }
  return failed ? undefined : result;
}
