import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { signJwt } from '../../server/jwt.ts';
import { backendInfo, serviceClient, type AnyClient } from '../setup/clients.ts';

/** A user's access token minted like GoTrue's (the auth service may not be there yet). */
export function userToken(sub: string = randomUUID(), expiresIn = 3600): string {
  const now = Math.floor(Date.now() / 1000);
  return signJwt(
    { sub, role: 'authenticated', aud: 'authenticated', iat: now, exp: now + expiresIn },
    backendInfo().jwtSecret,
  );
}

/** A supabase-js client acting as a signed-in user with the given id. */
export function userClient(sub: string = randomUUID()): { client: AnyClient; sub: string; token: string } {
  const { url, anonKey } = backendInfo();
  const token = userToken(sub);
  const client = createClient(url, anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    global: { headers: { Authorization: `Bearer ${token}` } },
    realtime: { transport: WebSocket as never },
  });
  return { client, sub, token };
}

export function uniqueBucket(tag: string): string {
  return `${tag}-${randomUUID().slice(0, 8)}`;
}

/** Creates a bucket as service_role and fails the test if that does not work. */
export async function makeBucket(
  tag: string,
  options: { public?: boolean; fileSizeLimit?: number | string; allowedMimeTypes?: string[] } = {},
) {
  const id = uniqueBucket(tag);
  const { error } = await serviceClient().storage.createBucket(id, { public: options.public ?? false, ...options });
  if (error) throw error;
  return id;
}

/** Raw fetch against /storage/v1 with a bearer (the service key unless given). */
export function storageFetch(pathname: string, init: RequestInit & { token?: string | null } = {}): Promise<Response> {
  const { url, serviceRoleKey } = backendInfo();
  const headers = new Headers(init.headers);
  const token = init.token === undefined ? serviceRoleKey : init.token;
  if (token) headers.set('authorization', `Bearer ${token}`);
  return fetch(`${url}/storage/v1${pathname}`, { ...init, headers });
}

/** Every file below a directory, relative to it (empty when it does not exist). */
export async function listFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  async function walk(current: string): Promise<void> {
    let entries;
    try {
      entries = await fs.readdir(current, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) await walk(full);
      else found.push(path.relative(dir, full));
    }
  }
  await walk(dir);
  return found.sort();
}

export function bucketDir(bucket: string): string {
  return path.join(backendInfo().dataDir, 'storage', bucket);
}
