/**
 * The document as `/docs` (Swagger UI) reads it: OpenAPI 3.0 instead of 3.1. Swagger UI parses
 * a 3.1 document with ApiDOM, which on this document takes about twice the time of the whole
 * page with the 3.0 parser (measured in Chromium: 18.6 s against 8.2–11.6 s of main-thread work
 * on a loaded 2-core machine, the bundle alone 7.7 s). The schemas use only what 3.0 can say
 * once `null` types become `nullable` (and `null` alone `enum: [null]`); `propertyNames` and `$schema` have no 3.0 form and are
 * left out of the UI's copy. `/openapi.json` stays 3.1, whole.
 */
export function forSwaggerUi(document: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return { ...(downgrade(document) as Record<string, unknown>), openapi: '3.0.3' };
}

function downgrade(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(downgrade);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'propertyNames' || key === '$schema') continue;
    out[key] = downgrade(inner);
  }
  // `type: 'null'` (a `{ data: null }` answer) → `nullable: true, enum: [null]`.
  if (out.type === 'null') {
    delete out.type;
    return { ...out, nullable: true, enum: [null] };
  }
  // `type: ['string', 'null']` → `type: 'string', nullable: true`.
  if (Array.isArray(out.type) && out.type.includes('null')) {
    const types = out.type.filter((type) => type !== 'null');
    out.nullable = true;
    if (types.length === 1) out.type = types[0];
    else if (types.length === 0) delete out.type;
    else {
      delete out.type;
      out.anyOf = types.map((type) => ({ type }));
    }
  }
  // `anyOf: [X, { type: 'null' }]` → X's alternatives, nullable.
  if (Array.isArray(out.anyOf)) {
    const alternatives = out.anyOf.filter(
      (item) => !(item && typeof item === 'object' && (item as { type?: unknown }).type === 'null'),
    );
    if (alternatives.length < out.anyOf.length) {
      out.nullable = true;
      if (alternatives.length === 1 && !('$ref' in (alternatives[0] as object))) {
        delete out.anyOf;
        Object.assign(out, alternatives[0]);
      } else out.anyOf = alternatives;
    }
  }
  return out;
}
