import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import type { ChartroomClient, SupabaseConfig } from './client.ts';

/**
 * The client for Node (the `chartroom` command): no stored session of its own (the command
 * keeps it per folder), and `ws` for realtime, since Node 20 has no WebSocket. Apart from
 * the browser's client.ts so the app's bundle never pulls in `ws`. With `accessToken`,
 * every request carries it as it is (`chartroom login --token`).
 */
export function createNodeClient(config: SupabaseConfig, accessToken?: string): ChartroomClient {
  return createClient(config.url, config.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: WebSocket as never },
    ...(accessToken ? { global: { headers: { Authorization: `Bearer ${accessToken}` } } } : {}),
  });
}
