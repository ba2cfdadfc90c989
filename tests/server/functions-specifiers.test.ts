import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FunctionsProject, isFunctionName, parseDotenv } from '../../server/functions/project.ts';
import {
  applyImportMap,
  EMPTY_MODULE,
  toNodeSpecifier,
  UnsupportedSpecifierError,
} from '../../server/functions/specifiers.ts';

/** The pure parts of the functions runtime: specifier mapping, import maps, .env, names, config. */

describe('toNodeSpecifier', () => {
  it.each([
    ['npm:@supabase/supabase-js@2', '@supabase/supabase-js'],
    ['npm:@supabase/supabase-js@2.119.1/cors', '@supabase/supabase-js/cors'],
    ['npm:@supabase/supabase-js', '@supabase/supabase-js'],
    ['npm:pg@^8.11', 'pg'],
    ['npm:/pg@8/lib/index.js', 'pg/lib/index.js'],
    ['npm:zod', 'zod'],
    ['jsr:@supabase/supabase-js@2', '@supabase/supabase-js'],
    ['jsr:@supabase/functions-js@2/edge-runtime.d.ts', EMPTY_MODULE],
    ['jsr:@supabase/functions-js/edge-runtime.d.ts', EMPTY_MODULE],
    ['https://esm.sh/@supabase/supabase-js@2?target=deno', '@supabase/supabase-js'],
    ['https://esm.sh/v135/zod@3.22.4/lib', 'zod/lib'],
  ])('%s -> %s', (input, output) => {
    expect(toNodeSpecifier(input)).toBe(output);
  });

  it('leaves Node specifiers alone', () => {
    for (const s of [
      './a.ts',
      '../_shared/cors.ts',
      '/abs/x.ts',
      'node:fs',
      'file:///x.ts',
      'pg',
      '@supabase/supabase-js',
      'data:text/javascript,',
    ]) {
      expect(toNodeSpecifier(s)).toBeNull();
    }
  });

  it('refuses remote URLs and JSR packages that have no local package, naming the import', () => {
    expect(() => toNodeSpecifier('jsr:@std/path@1')).toThrow(UnsupportedSpecifierError);
    expect(() => toNodeSpecifier('https://deno.land/std@0.168.0/http/server.ts')).toThrow(/remote imports/);
  });
});

describe('applyImportMap', () => {
  const map = {
    imports: {
      '@supabase/supabase-js': 'npm:@supabase/supabase-js@2',
      'shared/': '../_shared/',
      'lib/': 'npm:lodash-es@4/',
      'lib/special': './special.ts',
    },
    baseUrl: 'file:///p/supabase/functions/f/deno.json',
  };
  it('maps exact keys, longest prefixes, and relative targets against the map file', () => {
    expect(applyImportMap('@supabase/supabase-js', map)).toBe('npm:@supabase/supabase-js@2');
    expect(applyImportMap('shared/cors.ts', map)).toBe('file:///p/supabase/functions/_shared/cors.ts');
    expect(applyImportMap('lib/fp', map)).toBe('npm:lodash-es@4/fp');
    expect(applyImportMap('lib/special', map)).toBe('file:///p/supabase/functions/f/special.ts');
    expect(applyImportMap('other', map)).toBeNull();
    expect(applyImportMap('x', null)).toBeNull();
  });
});

describe('parseDotenv', () => {
  it('reads KEY=value lines with quotes, export, comments and escapes', () => {
    const text = [
      '# comment',
      'A=1',
      'export B="two words"',
      "C='single # not comment'",
      'D=value # comment',
      'E="line\\nbreak"',
      'not a line',
      '',
      'F=',
    ].join('\n');
    expect(parseDotenv(text)).toEqual({
      A: '1',
      B: 'two words',
      C: 'single # not comment',
      D: 'value',
      E: 'line\nbreak',
      F: '',
    });
  });
});

describe('function names and config.toml', () => {
  it('accepts CLI-style slugs only', () => {
    for (const ok of ['health', 'invite-accept', 'ingest_v2', 'A1']) expect(isFunctionName(ok), ok).toBe(true);
    for (const bad of ['', '_shared', '.env', '..', 'a/b', 'a.b', 'a b', '%2e', 'x'.repeat(129)])
      expect(isFunctionName(bad), bad).toBe(false);
  });

  it('reads verify_jwt, enabled and entrypoint from the fixture project', () => {
    const dir = path.resolve('tests/fixtures/functions/supabase');
    const project = new FunctionsProject(dir, path.join(dir, 'functions'), () => undefined);
    expect(project.settings('echo')?.verifyJwt).toBe(true);
    expect(project.settings('open')?.verifyJwt).toBe(false);
    expect(project.settings('disabled-fn')).toBeNull();
    expect(project.settings('missing')).toBeNull();
    expect(project.settings('custom-entry')?.entrypoint).toBe(path.join(dir, 'functions/echo/index.ts'));
    expect(project.settings('imports')?.importMapPath).toBe(path.join(dir, 'functions/imports/deno.json'));
    expect(project.importMap(project.settings('imports')?.importMapPath ?? null)?.imports['shared/']).toBe(
      '../_shared/',
    );
  });
});
