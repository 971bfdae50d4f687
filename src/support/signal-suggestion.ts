import { constants } from 'node:os';
import { closestMatch } from './closest-match.ts';

// Signal names are short and all begin with SIG, so two edits reach too far:
// "SIGFOO" is two from SIGIO and "9x" two from IO, typos of neither. So they
// are compared without SIG, and a suggestion is one edit away (SIGKIL, TREM
// and HPU are: a letter dropped, two swapped).
const SIGNAL_TYPO_DISTANCE = 1;

/** " (did you mean SIGTERM?)" after SIGTREM, TREM or sigtrem; "" when no signal is one edit away. */
export function didYouMeanSignal(text: string): string {
  const bare = text.toUpperCase().replace(/^SIG/, '');
  const names = Object.keys(constants.signals).map((name) => name.slice('SIG'.length));
  const meant = closestMatch(bare, names, SIGNAL_TYPO_DISTANCE);
  return meant === undefined ? '' : ` (did you mean SIG${meant}?)`;
}
