import { describe, expect, it } from 'vitest';
import { checkXStateText, parseJsonText } from '../../../src/lib/model/index.ts';

describe('the JSON reader behind the code view', () => {
  it('reads what JSON.parse reads', () => {
    const text = '{"a": [1, -2.5e3, true, false, null, "x\\n\\u00e9\\"/"], "b": {"c": {}}, "d": []}';
    const result = parseJsonText(text);
    expect(result.ok && result.value).toStrictEqual(JSON.parse(text));
  });

  it('keeps a "__proto__" key as data instead of swapping the prototype', () => {
    const result = parseJsonText('{"__proto__": {"polluted": true}}');
    if (!result.ok) throw new Error('did not parse');
    const value = result.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('records the source span of every value by config path', () => {
    const text = '{\n  "states": {\n    "a": { "on": { "auth.signedIn": ["b"] } }\n  }\n}';
    const result = parseJsonText(text);
    if (!result.ok) throw new Error('did not parse');
    const span = result.spans.get('states.a.on["auth.signedIn"][0]');
    expect(span && text.slice(span.start, span.end)).toBe('"b"');
    const member = result.spans.get('states.a');
    expect(member && text.slice(member.start, member.start + 3)).toBe('"a"');
  });

  it('refuses nesting deep enough to exhaust the stack, as a parse error', () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const result = parseJsonText(deep);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.issue.message).toMatch(/nesting too deep/);
  });

  it('attaches positions to import and validation issues', () => {
    const text = '{\n  "initial": "a",\n  "states": {\n    "a": { "on": { "GO": "#nowhere" } }\n  }\n}';
    const [issue] = checkXStateText(text).issues;
    expect(issue).toMatchObject({
      path: 'states.a.on.GO',
      message: 'unknown target "#nowhere"',
      at: { line: 4, column: 20 },
    });
  });
});
