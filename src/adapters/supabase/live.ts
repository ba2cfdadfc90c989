import type { SupabaseClient } from '@supabase/supabase-js';
import { supabaseApiUrl, supabaseClient } from './client.ts';
import type { Database } from './database.types.ts';
import { createCanvasPresenceAdapter } from './canvas-presence.ts';
import { createCommentsAdapter } from './comments.ts';
import { createCommentCountsAdapter } from './comment-counts.ts';
import { createInspectionAdapter } from './inspection.ts';
import { createInspectionFollowAdapter } from './inspection-follow.ts';
import { createMachinesAdapter } from './machines.ts';
import { createMembersAdapter } from './members.ts';
import { createConnectionAdapter } from './realtime.ts';
import { createRoomAdapter } from './room.ts';
import { createSimulationsAdapter } from './simulations.ts';
import { createMachineTestsAdapter } from './machine-tests.ts';
import { createTestPlaybackAdapter } from './test-playback.ts';
import { createTimelineAdapter } from './timeline.ts';
import { createVersionsAdapter } from './versions.ts';
import { createProposalsAdapter } from './proposals.ts';

/**
 * The live room's adapters over the app's one browser client. The client is created
 * without a schema type (client.ts), so it is narrowed to the generated `Database` here,
 * once, where Supabase types are allowed.
 */
export function liveRoomAdapters() {
  const client = supabaseClient() as unknown as SupabaseClient<Database>;
  return {
    room: createRoomAdapter(client),
    members: createMembersAdapter(client),
    connection: createConnectionAdapter(client),
    machines: createMachinesAdapter(client),
    canvasPresence: createCanvasPresenceAdapter(client),
    simulations: createSimulationsAdapter(client),
    tests: createMachineTestsAdapter(client),
    testPlayback: createTestPlaybackAdapter(client),
    timeline: createTimelineAdapter(client),
    versions: createVersionsAdapter(client),
    proposals: createProposalsAdapter(client),
    comments: createCommentsAdapter(client),
    commentCounts: createCommentCountsAdapter(client),
    inspection: createInspectionAdapter(client, supabaseApiUrl()),
    inspectionFollow: createInspectionFollowAdapter(client),
  };
}
