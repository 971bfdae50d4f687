import { applyPatch, type Operation } from 'rfc6902';

/** The object after a JSON Patch (RFC 6902), applied to a copy; throws when an operation does not apply. */
export function patched<T>(object: T, patch: readonly unknown[]): T {
  const copy = structuredClone(object);
  const failures = applyPatch(copy, patch as Operation[]).flatMap((error, index) =>
    error === null ? [] : [`${JSON.stringify(patch[index])}: ${error.message}`],
  );
  if (failures.length > 0) throw new Error(`the patch does not apply:\n${failures.join('\n')}`);
  return copy;
}
