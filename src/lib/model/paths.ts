/**
 * Config paths as people read them: `states.checkout.on.PAY[0].target`. Keys that are
 * not plain identifiers are quoted in brackets (`on["auth.signedIn"]`) so a dotted event
 * name cannot be mistaken for nesting.
 */
const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function keyPath(base: string, key: string): string {
  if (IDENT.test(key)) return base === '' ? key : `${base}.${key}`;
  return `${base}[${JSON.stringify(key)}]`;
}

export function indexPath(base: string, index: number): string {
  return `${base}[${index}]`;
}

/** Shown for issues about the machine (root) itself, whose path is empty. */
export const ROOT_PATH_LABEL = '(machine)';
