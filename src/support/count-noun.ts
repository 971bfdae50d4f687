// A count and its noun, for the lines sidecar-init writes: "1 init step",
// "2 sidecars", "0 externals".

/** `count` and the noun that fits it: the singular for exactly one, else the plural (the singular and an s unless given). */
export function countNoun(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}
