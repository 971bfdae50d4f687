import type { CheckArgs } from './plan-injection.ts';

/**
 * How many command lines' verdicts are kept. The pods of one Job or ReplicaSet
 * carry the same command line, so a scale-up asks the same question hundreds
 * of times; a few hundred distinct ones bound the memory whatever is sent.
 */
const MAX_REMEMBERED = 256;

/**
 * The checker, answering a command line it has judged before from memory:
 * checking one (the CLI parser, then the plan's rules) is most of a review's
 * own cost (bench/webhook-reviews.ts). A verdict depends only on the words
 * and the variables, so it is reused as is; the oldest is forgotten first.
 */
export function rememberVerdicts(check: CheckArgs): CheckArgs {
  const remembered = new Map<string, ReturnType<CheckArgs>>();
  return (argv, env) => {
    const key = JSON.stringify([argv, env]);
    const known = remembered.get(key);
    if (known !== undefined) return known;
    const verdict = check(argv, env);
    if (remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value as string);
    remembered.set(key, verdict);
    return verdict;
  };
}
