/** A plain object (not null, not an array): what YAML, JSON and AdmissionReviews give for a mapping. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
