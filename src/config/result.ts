// The outcome of parsing one value: the value, or a message saying what was
// wrong. Parsers return it instead of throwing so that every problem in a
// configuration can be collected and reported at once.

export type Result<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function fail<T = never>(message: string): Result<T> {
  return { ok: false, message };
}

/** A value for messages: strings quoted, so an empty or padded value is visible. */
export function quote(value: string): string {
  return JSON.stringify(value);
}

/** "a, b or c", for the accepted values in a message. */
export function listAlternatives(values: readonly string[]): string {
  return values.length <= 1 ? (values[0] ?? '') : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
}
