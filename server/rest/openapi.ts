import type { SchemaCache } from './schema.ts';

/** JSON Schema type of a PostgreSQL type, as PostgREST's OpenAPI output maps it. */
function jsonType(pgType: string, isArray: boolean): Record<string, unknown> {
  if (isArray) return { type: 'array', items: jsonType(pgType.replace(/\[\]$/, ''), false) };
  if (/^(integer|bigint|smallint)$/.test(pgType)) return { type: 'integer', format: pgType };
  if (/^(numeric|real|double precision)/.test(pgType)) return { type: 'number', format: pgType };
  if (pgType === 'boolean') return { type: 'boolean', format: pgType };
  if (pgType === 'json' || pgType === 'jsonb') return { format: pgType };
  return { type: 'string', format: pgType };
}

/** The root of /rest/v1: a Swagger 2.0 description of the schema's tables, views and functions. */
export function openApi(cache: SchemaCache, schema: string, host: string): unknown {
  const paths: Record<string, unknown> = {
    '/': { get: { tags: ['Introspection'], summary: 'OpenAPI description (this document)' } },
  };
  const definitions: Record<string, unknown> = {};
  for (const t of cache.tables.values()) {
    if (t.schema !== schema) continue;
    const ops = t.kind === 'table' ? ['get', 'post', 'patch', 'delete'] : ['get'];
    paths[`/${t.name}`] = Object.fromEntries(
      ops.map((op) => [op, { tags: [t.name], responses: { 200: { description: 'OK' } } }]),
    );
    definitions[t.name] = {
      type: 'object',
      required: t.columnOrder.filter((c) => !t.columns.get(c)!.nullable && !t.columns.get(c)!.hasDefault),
      properties: Object.fromEntries(
        t.columnOrder.map((c) => {
          const col = t.columns.get(c)!;
          const pk = t.primaryKey.includes(c) ? { description: 'Note:\nThis is a Primary Key.<pk/>' } : {};
          return [c, { ...jsonType(col.type, col.isArray), ...pk }];
        }),
      ),
    };
  }
  for (const [, overloads] of cache.functions) {
    const fn = overloads[0];
    if (!fn || fn.schema !== schema) continue;
    paths[`/rpc/${fn.name}`] = { post: { tags: ['(rpc) ' + fn.name], responses: { 200: { description: 'OK' } } } };
  }
  return {
    swagger: '2.0',
    info: { title: 'Chartroom REST', description: 'PostgREST-compatible API of the embedded backend', version: '12' },
    host,
    basePath: '/rest/v1',
    schemes: ['http'],
    consumes: ['application/json', 'application/vnd.pgrst.object+json', 'text/csv'],
    produces: ['application/json', 'application/vnd.pgrst.object+json', 'text/csv'],
    paths,
    definitions,
  };
}
