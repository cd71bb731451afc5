/** Reading the admin HTTP API in tests: a GET with its JSON body, and the keys a schema of the OpenAPI document lists. */
import { expect } from 'vitest';
import { OPENAPI_DOCUMENT } from '../../src/admin/openapi.js';

/** GET `base + path`: the status and the parsed JSON body. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function getJson(base: string, path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, body: await res.json() };
}

/** The documented properties of a schema, sorted (every one is required in these schemas: checked). */
export function documentedKeys(name: string): string[] {
  const schema = (OPENAPI_DOCUMENT.components.schemas as unknown as Record<string, { required: readonly string[]; properties: Record<string, unknown> }>)[name]!;
  expect([...schema.required].sort()).toEqual(Object.keys(schema.properties).sort());
  return [...schema.required].sort();
}
