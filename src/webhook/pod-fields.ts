import { isRecord } from '../support/is-record.ts';
// Reading a Pod as it arrives in an AdmissionReview: untrusted JSON. Only the
// fields the webhook needs are read, each checked for its type; everything
// else passes through untouched, since the answer is a patch, not a new pod.

export type JsonRecord = Record<string, unknown>;

export function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** A list of objects in the spec: a missing list is empty; anything else that is not a list of objects is undefined. */
export function records(value: unknown): JsonRecord[] | undefined {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every(isRecord)) return undefined;
  return value;
}

/** Annotations or labels: the string values only. */
export function stringMap(value: unknown): Readonly<Record<string, string>> {
  if (!isRecord(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}
