/**
 * A value built the first time it is asked for, then the same one: for the
 * config's zod schemas, which every start would otherwise build at the top
 * level of their modules. The CLI's tables import them, so `--version`,
 * `--help` and a usage error built every option's and every field's schema,
 * and a run those of fields it was not given (bench/README.md, "Goals").
 * The same object every time, so what keys on a schema's identity (zod's
 * registry of .meta(), the JSON Schema's references) sees one schema.
 */
export function builtOnFirstUse<Value>(build: () => Value): () => Value {
  let built: { readonly value: Value } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
}
