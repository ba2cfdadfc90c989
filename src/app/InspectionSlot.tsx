import { InspectionContext, InspectionPage } from '../features/inspection/index.ts';
import { useCanEdit, useIsOwner, useMembers } from '../features/room/room-context.ts';
import { routePath } from '../lib/route.ts';
import { inspector } from './inspect.ts';
import { liveInspectionLogic, liveIngestUrl } from './live.ts';

/** The inspection page inside a project's room: one inspection actor per project and role. */
export function InspectionSlot({ projectId }: { projectId: string }) {
  const isOwner = useIsOwner();
  const canEdit = useCanEdit();
  const userId = useMembers().find((m) => m.isMe)?.userId;
  return (
    <InspectionContext.Provider
      key={`${projectId}:${isOwner}:${canEdit}:${userId ?? ''}`}
      logic={liveInspectionLogic()}
      options={{ input: { projectId, isOwner, canEdit, userId }, inspect: inspector() }}
    >
      <InspectionPage ingestUrl={liveIngestUrl()} projectHref={routePath({ name: 'project', projectId })} />
    </InspectionContext.Provider>
  );
}
