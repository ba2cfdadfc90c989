/** Builds SQL text with `$n` placeholders; every value goes through `param`. */
export class SqlBuilder {
  readonly values: unknown[] = [];

  param(value: unknown, cast?: string): string {
    this.values.push(value);
    return cast ? `$${this.values.length}::${cast}` : `$${this.values.length}`;
  }
}

/**
 * Quotes an identifier. Callers pass only names found in the schema cache, or aliases
 * the parser restricted to letters, digits, `_`, `$` and spaces; doubling quotes keeps
 * even those inert.
 */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function qualified(schema: string, name: string): string {
  return `${ident(schema)}.${ident(name)}`;
}

/** A catalog string (a column name, a default expression's owner) as a literal. */
export function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
