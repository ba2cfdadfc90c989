// Liveness of the functions runtime: deploys unchanged to hosted Supabase.
import 'jsr:@supabase/functions-js/edge-runtime.d.ts';
import { corsHeaders } from 'npm:@supabase/supabase-js@2/cors';

Deno.serve((req: Request) => {
  if (req.method === 'OPTIONS') return new Response('ok', { headers: corsHeaders });
  return Response.json({ ok: true, time: new Date().toISOString() }, { headers: corsHeaders });
});
