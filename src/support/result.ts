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

export function mapResult<T, U>(result: Result<T>, map: (value: T) => U): Result<U> {
  return result.ok ? ok(map(result.value)) : result;
}
