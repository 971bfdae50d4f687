// "Did you mean ...?" for unknown keys and unknown process names: a typo is
// usually a letter or two away from what was meant.
const MAX_TYPO_DISTANCE = 2;

/** The candidate nearest to `text` (ignoring case), when it is near enough to be the likely intent. */
export function closestMatch(text: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = MAX_TYPO_DISTANCE + 1;
  for (const candidate of candidates) {
    // A key far longer than every candidate cannot be near one; this also keeps a huge key cheap.
    if (Math.abs(text.length - candidate.length) > MAX_TYPO_DISTANCE) continue;
    const distance = editDistance(text.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

/**
 * Edits from a to b (optimal string alignment): a letter added, dropped,
 * changed, or two neighbours swapped, each one edit, since a swap ("tpc" for
 * "tcp", "grcp" for "grpc") is the commonest typo of all.
 */
function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, before[j - 2]! + 1);
    }
    before = previous;
    previous = row;
  }
  return previous[b.length]!;
}
