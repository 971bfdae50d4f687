import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createJsonSchema, JSON_SCHEMA_FILE, renderJsonSchema } from './json-schema.ts';

/** Every mapping with fixed keys in the JSON Schema, by where it is, and whether it refuses other keys. */
function mappings(node: unknown, path = '$'): Map<string, boolean> {
  const found = new Map<string, boolean>();
  if (typeof node !== 'object' || node === null) return found;
  const schema = node as Record<string, unknown>;
  if (schema.type === 'object' && typeof schema.properties === 'object') found.set(path, schema.additionalProperties === false);
  for (const [key, value] of Object.entries(schema)) {
    const children = Array.isArray(value)
      ? value.map((item, index) => mappings(item, `${path}.${key}[${index}]`))
      : [mappings(value, `${path}.${key}`)];
    for (const child of children) for (const [k, v] of child) found.set(k, v);
  }
  return found;
}

describe('the published JSON Schema', () => {
  it('is the one generated from the zod schema (run npm run schema after a change)', () => {
    expect(readFileSync(JSON_SCHEMA_FILE, 'utf8')).toBe(renderJsonSchema());
  });

  it('refuses unknown keys in every mapping, as the validator does', () => {
    const found = mappings(createJsonSchema());
    expect([...found].filter(([, strict]) => !strict)).toEqual([]);
    // One mapping per role, chosen by role: [1] is the sidecar's, which has every kind of nested mapping.
    const process = '$.properties.processes.items.oneOf[1].properties';
    expect([...found.keys()]).toEqual(
      expect.arrayContaining([
        '$',
        '$.properties.processes.items.oneOf[0]',
        '$.properties.processes.items.oneOf[1]',
        '$.properties.processes.items.oneOf[2]',
        '$.properties.processes.items.oneOf[3]',
        `${process}.readiness`,
        `${process}.readiness.properties.probe.anyOf[1]`,
        `${process}.readiness.properties.probe.anyOf[1].properties.tcp`,
        `${process}.readiness.properties.probe.anyOf[1].properties.http`,
        `${process}.liveness`,
        `${process}.backoff`,
        `${process}.postStart`,
        `${process}.postStart.properties.http`,
        `${process}.preStop`,
        '$.properties.drain.anyOf[1]',
      ]),
    );
  });

  it('describes the probe and hook mappings as taking exactly one kind', () => {
    const schema = createJsonSchema() as {
      properties: { processes: { items: { oneOf: { properties: Record<string, Record<string, unknown>> }[] } } };
    };
    const { readiness, preStop } = schema.properties.processes.items.oneOf[1]!.properties;
    const probe = (readiness!.properties as { probe: { anyOf: Record<string, unknown>[] } }).probe.anyOf[1];
    expect(probe).toMatchObject({ minProperties: 1, maxProperties: 1 });
    expect(preStop).toMatchObject({ oneOf: [{ required: ['exec'] }, { required: ['http'] }] });
  });

  it('gives each role its own mapping, chosen by role, with only the fields that role has', () => {
    const schema = createJsonSchema() as {
      properties: { processes: { items: { oneOf: { properties: Record<string, { const?: string }>; required: string[] }[] } } };
    };
    const roles = schema.properties.processes.items.oneOf;
    expect(roles.map((role) => role.properties.role!.const)).toEqual(['init', 'sidecar', 'app', 'external']);
    const [init, sidecar, app, external] = roles.map((role) => role.properties);
    expect(Object.keys(init!)).not.toContain('readiness');
    expect(Object.keys(sidecar!)).toEqual(expect.arrayContaining(['readiness', 'fatal']));
    expect(Object.keys(app!)).toContain('successCodes');
    expect(Object.keys(external!)).not.toContain('command');
    expect(roles.map((role) => role.required.includes('command'))).toEqual([true, true, true, false]);
  });
});
