// The JSON Patch operations (RFC 6902) the webhook answers with: it only adds
// and removes, so a patch never depends on a value it did not read.

export type Operation =
  | { readonly op: 'add'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string };
