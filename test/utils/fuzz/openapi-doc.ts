/**
 * The OpenAPI document, as much of it as the fuzz battery (test/e2e/service/fuzz-openapi.e2e-spec.ts) reads:
 * its operations, their parameters and body fields as targets.
 */

export interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: unknown[];
  example?: unknown;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  minimum?: number;
}
export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}
export interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  security?: Record<string, string[]>[];
  responses?: Record<string, { content?: Record<string, unknown> }>;
}
export interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

export type Location = 'path' | 'query' | 'header' | 'body' | 'form';
export interface Target {
  in: Location;
  /** Parameter name, or the dotted path of a body field (`program.tiers.0.percent_bp`). */
  name: string;
  type: string;
}

export interface Op {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  label: string;
  /** A server-rendered page: HTML answers, no problem documents. */
  html: boolean;
  security: string;
  params: Parameter[];
  bodyType?: 'json' | 'form';
  bodySchema?: Schema;
  targets: Target[];
}

export const HTML_PATH = /^\/(org|oauth|s|demo|p)(\/|$)/;

export function resolveRef(doc: Document, schema: Schema | undefined): Schema | undefined {
  if (!schema?.$ref) return schema;
  return doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')];
}

export function operations(doc: Document): Op[] {
  const ops: Op[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const params = [...(op.parameters ?? [])];
      // Path parameters the document leaves out (`{slug}` of the admin routes) are fuzzed too.
      for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
        if (!params.some((p) => p.in === 'path' && p.name === name)) {
          params.push({ name, in: 'path', required: true, schema: { type: 'string' } });
        }
      }
      const content = op.requestBody?.content ?? {};
      const bodyType = content['application/json']
        ? 'json'
        : content['application/x-www-form-urlencoded']
          ? 'form'
          : undefined;
      const bodySchema = resolveRef(
        doc,
        (content['application/json'] ?? content['application/x-www-form-urlencoded'])?.schema,
      );
      const html =
        HTML_PATH.test(path) ||
        Object.values(op.responses ?? {}).some((r) => r.content && 'text/html' in r.content);
      const security = Object.keys(op.security?.[0] ?? {})[0] ?? 'none';
      const targets: Target[] = params.map((p) => ({
        in: p.in as Location,
        name: p.name,
        type: resolveRef(doc, p.schema)?.type ?? 'string',
      }));
      // An unknown query parameter, on every operation.
      targets.push({ in: 'query', name: 'zz_unknown', type: 'string' });
      if (bodyType && bodySchema) {
        for (const field of bodyFields(doc, bodySchema)) {
          targets.push({ in: bodyType === 'json' ? 'body' : 'form', ...field });
        }
      }
      // The whole body: for operations without one too (a body they do not expect).
      targets.push({ in: bodyType === 'form' ? 'form' : 'body', name: '', type: 'object' });
      ops.push({
        method: method as Op['method'],
        path,
        label: `${method.toUpperCase()} ${path}`,
        html,
        security,
        params,
        bodyType,
        bodySchema,
        targets,
      });
    }
  }
  return ops;
}

/** Every field of a body schema, nested objects and the first item of arrays included. */
export function bodyFields(
  doc: Document,
  schema: Schema,
  prefix = '',
  depth = 0,
): { name: string; type: string }[] {
  const fields: { name: string; type: string }[] = [];
  for (const [key, raw] of Object.entries(schema.properties ?? {})) {
    const field = resolveRef(doc, raw) ?? {};
    const name = prefix + key;
    const type = field.type ?? (field.properties ? 'object' : 'string');
    fields.push({ name, type });
    if (depth >= 2) continue;
    if (field.properties) fields.push(...bodyFields(doc, field, `${name}.`, depth + 1));
    const items = resolveRef(doc, field.items);
    if (items?.properties) fields.push(...bodyFields(doc, items, `${name}.0.`, depth + 1));
  }
  return fields;
}
