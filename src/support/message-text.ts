// How values are written into messages: what was given, quoted so that an
// empty or padded value is visible, and what would be accepted instead.

/** A value for messages: strings quoted, so an empty or padded value is visible. */
export function quote(value: string): string {
  return JSON.stringify(value);
}

/** "a, b or c", for the accepted values in a message. */
export function listAlternatives(values: readonly string[]): string {
  return values.length <= 1 ? (values[0] ?? '') : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
}
