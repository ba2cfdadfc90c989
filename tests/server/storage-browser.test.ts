import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type * as SupabaseJs from '@supabase/supabase-js';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../setup/browser.ts';
import { backendInfo } from '../setup/clients.ts';
import { makeBucket } from './storage-helpers.ts';

/**
 * supabase-js in a real Chromium page on another origin: the multipart upload the browser
 * client builds (File in field "", x-upsert, CORS preflight), downloads, lists, signed
 * and public URLs, all cross-origin against the test backend.
 */
let browser: Browser;
let page: http.Server;
let pageUrl: string;

beforeAll(async () => {
  const bundle = await readFile(path.resolve('node_modules/@supabase/supabase-js/dist/umd/supabase.js'));
  page = http.createServer((req, res) => {
    if (req.url === '/supabase.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(bundle);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>storage</title><script src="/supabase.js"></script>');
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', () => resolve()));
  // localhost vs the backend's 127.0.0.1: a different origin, so every call is CORS.
  pageUrl = `http://localhost:${(page.address() as AddressInfo).port}/`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  page?.close();
});

interface BrowserResult {
  uploadError: string | null;
  path: string | null;
  downloaded: string | null;
  downloadedType: string | null;
  listed: string[];
  signedText: string | null;
  publicText: string | null;
  duplicate: { statusCode?: string; message?: string } | null;
}

describe('storage from a browser page', () => {
  it('uploads a File as multipart cross-origin and reads it back every way', async () => {
    const bucket = await makeBucket('browser', { public: true });
    const { url, serviceRoleKey } = backendInfo();
    const tab = await browser.newPage();
    try {
      await tab.goto(pageUrl);
      const result = await tab.evaluate(
        async ({ url, key, bucket }): Promise<BrowserResult> => {
          // The UMD bundle's global; the type import is erased, so nothing else reaches the page.
          const { createClient } = (window as unknown as { supabase: typeof SupabaseJs }).supabase;
          const client = createClient(url, key, { auth: { persistSession: false } });
          const files = client.storage.from(bucket);
          const file = new File(['hello from chromium'], 'note.txt', { type: 'text/plain' });
          const up = await files.upload('inbox/note.txt', file);
          const down = await files.download('inbox/note.txt');
          const list = await files.list('inbox');
          const signed = await files.createSignedUrl('inbox/note.txt', 60);
          const signedText = signed.data ? await (await fetch(signed.data.signedUrl)).text() : null;
          const publicText = await (await fetch(files.getPublicUrl('inbox/note.txt').data.publicUrl)).text();
          const again = await files.upload('inbox/note.txt', file);
          return {
            uploadError: up.error ? String(up.error.message) : null,
            path: up.data ? up.data.path : null,
            downloaded: down.data ? await down.data.text() : null,
            downloadedType: down.data ? down.data.type : null,
            listed: (list.data ?? []).map((e) => e.name),
            signedText,
            publicText,
            duplicate: again.error ? { statusCode: again.error.statusCode, message: again.error.message } : null,
          };
        },
        { url, key: serviceRoleKey, bucket },
      );
      expect(result).toEqual({
        uploadError: null,
        path: 'inbox/note.txt',
        downloaded: 'hello from chromium',
        downloadedType: 'text/plain',
        listed: ['note.txt'],
        signedText: 'hello from chromium',
        publicText: 'hello from chromium',
        duplicate: { statusCode: '409', message: 'The resource already exists' },
      });
    } finally {
      await tab.close();
    }
  });
});
