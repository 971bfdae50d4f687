// "Did you mean ...?" wherever a name is chosen from a list (keys, process
// names, signals, roles, presets, policies): a typo is usually a letter or two
// away from what was meant.
const MAX_TYPO_DISTANCE = 2;

/**
 * The candidate nearest to `text` (ignoring case), when it is near enough to
 * be the likely intent: at most `maxDistance` edits, and fewer edits than
 * `text` has letters (rewriting all of "up" gives "on", which is no typo of it).
 */
export function closestMatch(text: string, candidates: readonly string[], maxDistance = MAX_TYPO_DISTANCE): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.min(maxDistance, text.length - 1) + 1;
  for (const candidate of candidates) {
    // A key far longer than every candidate cannot be near one; this also keeps a huge key cheap.
    if (Math.abs(text.length - candidate.length) > maxDistance) continue;
    const distance = editDistance(text.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

/** " (did you mean X?)" for the candidate nearest to `text`, or "" when none is near: the clause after a refused value. */
export function didYouMean(text: string, candidates: readonly string[], maxDistance = MAX_TYPO_DISTANCE): string {
  const meant = closestMatch(text, candidates, maxDistance);
  return meant === undefined ? '' : ` (did you mean ${meant}?)`;
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
