import { useCallback, useDeferredValue, useMemo, useState } from 'react';
import { useMachineName } from '../machines/machine-list-context.ts';
import { useCanvasReviewKey } from '../versions/versions-selectors.ts';
import { Avatar } from '../room/Avatar.tsx';
import { useCanEdit, useMembers, useOpenMachineRef } from '../room/room-context.ts';
import { useCurrentUser } from '../session/session-context.ts';
import { Inspector } from '../inspector/index.ts';
import { SimulationPanel } from '../simulation/index.ts';
import { TestsPanel } from '../tests/index.ts';
import { TimelinePanel } from '../timeline/index.ts';
import { useDraftOf, useProposalsRef } from '../proposals/index.ts';
import { CanvasPage } from './CanvasPage.tsx';
import { CodeView } from './CodeView.tsx';
import { MachineBar } from './MachineBar.tsx';
import { MachineDock } from './MachineDock.tsx';
import { PanelBoundary } from './PanelBoundary.tsx';
import { PresentMenu, SpotlightAsk } from './Presenting.tsx';
import {
  OpenMachineRefContext,
  useCanvasPeers,
  useDefinition,
  useDocumentError,
  useDocumentSend,
  useDroppedReasons,
  useCanEditCanvas,
  useCanSendSim,
  useFollowing,
  useSpotlightAsk,
  usePresenceSend,
  useSimulationRef,
  useTimelineRef,
  useSyncStatus,
  useUnsentCount,
  type SyncStatus,
} from './open-machine-context.ts';
import type { PeerCursor } from './PeerCursors.tsx';

const SYNC_TEXT: Record<SyncStatus, string> = {
  loading: 'Opening…',
  failed: "Couldn't open",
  offline: 'Offline',
  saving: 'Saving…',
  syncing: 'Syncing…',
  unsaved: 'Not saved',
  synced: 'Saved',
};

/**
 * One machine open in the room, at /p/:projectId/m/:machineId. The room opens it from the
 * address (its `route` actor), invoking the open machine (document, presence, layout and
 * canvas), and closes it when the address leaves it. Everything below reads that actor
 * through named hooks.
 */
export function MachineView({ machineId }: { machineId: string }) {
  const open = useOpenMachineRef();

  if (!open || open.getSnapshot().context.machineId !== machineId) {
    return (
      <p className="center" role="status">
        <span className="spinner" aria-hidden="true" /> Opening the machine…
      </p>
    );
  }
  return (
    <OpenMachineRefContext.Provider value={open}>
      <OpenMachine machineId={machineId} />
    </OpenMachineRefContext.Provider>
  );
}

function OpenMachine({ machineId }: { machineId: string }) {
  const canEdit = useCanEdit();
  const members = useMembers();
  // A proposal's draft is in no machine list: it goes by its proposal's title.
  const draftOf = useDraftOf(useProposalsRef());
  const name = useMachineName(machineId) ?? draftOf?.title ?? null;
  const definition = useDefinition();
  // The canvas renders the newest definition at transition priority: a burst of remote ops
  // (a pasted 1,000-state config arrives as hundreds of rows) re-renders the diagram once
  // for the burst, not once per op, and never as a chain of synchronous updates.
  const shown = useDeferredValue(definition);
  const sync = useSyncStatus();
  const unsent = useUnsentCount();
  const error = useDocumentError();
  const dropped = useDroppedReasons();
  const peersById = useCanvasPeers();
  const following = useFollowing();
  const docSend = useDocumentSend();
  const presenceSend = usePresenceSend();
  const simulation = useSimulationRef();
  const timeline = useTimelineRef();
  const user = useCurrentUser();
  const canEditCanvas = useCanEditCanvas();
  // The canvas's tools show in the page's one bar (CanvasPage renders them into it).
  const [toolsHost, setToolsHost] = useState<HTMLElement | null>(null);
  // Members of any role send simulation events; guests watch (the room tells the open machine, the database says the same).
  const canSend = useCanSendSim();

  const people = useMemo(() => new Map(members.map((m) => [m.userId, m])), [members]);
  const peers: PeerCursor[] = useMemo(
    () =>
      Object.entries(peersById).map(([id, p]) => {
        const person = people.get(p.userId);
        const name = person?.name ?? 'Someone';
        return {
          id,
          name: p.agent ? `${name}'s agent` : name,
          color: person?.color ?? '#978365',
          cursor: p.cursor,
          selection: p.selection,
          agent: p.agent,
          followable: p.followable,
          spotlight: p.spotlight,
        };
      }),
    [peersById, people],
  );
  const followed = following ? people.get(following) : undefined;
  const askedBy = useSpotlightAsk();
  const asking = askedBy ? people.get(askedBy) : undefined;
  const onUserMove = useCallback(() => presenceSend({ type: 'presence.unfollow' }), [presenceSend]);
  // A version or diff shown on the canvas: the canvas is drawn afresh for it (and fitted), and for now again after.
  const reviewKey = useCanvasReviewKey();
  // The diagram and the Inspector are the same elements until the deferred definition moves
  // on: the urgent render a new definition starts (and one per cursor or sync change) skips
  // them, and the deferred one draws them once (both subscribe to the rest themselves).
  const canvas = useMemo(
    () =>
      shown ? (
        <PanelBoundary name="The diagram" resetKey={shown}>
          <CanvasPage key={reviewKey ?? 'now'} definition={shown} peers={peers} toolbarHost={toolsHost} />
        </PanelBoundary>
      ) : null,
    [shown, reviewKey, peers, toolsHost],
  );
  const inspector = useMemo(() => shown && <Inspector definition={shown} />, [shown]);

  return (
    <section
      className="machine-view"
      aria-label={`Machine ${name ?? ''}`.trim()}
      style={followed ? { boxShadow: `inset 0 0 0 3px ${followed.color}` } : undefined}
    >
      <MachineBar
        machineId={machineId}
        name={name}
        canEdit={canEdit}
        toolsRef={setToolsHost}
        status={
          <span
            className={`machine-sync ${sync}`}
            role="status"
            aria-live="polite"
            data-sync={sync}
            title={SYNC_TEXT[sync]}
          >
            <span className="machine-sync-dot" aria-hidden="true" />
            {SYNC_TEXT[sync]}
            {unsent > 0 && sync !== 'synced' ? ` · ${unsent} edit${unsent === 1 ? '' : 's'} waiting` : ''}
          </span>
        }
        people={
          <>
            <ul className="machine-peers" aria-label="On this machine">
              {peers.map((p) => {
                const m = people.get(p.id);
                // An agent has no view to follow: it shows as who it works for, marked as an agent.
                if (p.agent)
                  return (
                    <li key={p.id} className="machine-peer-agent" title={p.name}>
                      <Avatar name="✦" color={p.color} avatarUrl={null} online label={p.name} size={26} />
                    </li>
                  );
                // Someone who does not let others follow shows, but cannot be followed.
                const label = !p.followable
                  ? `${p.name} is not sharing their view`
                  : following === p.id
                    ? `Stop following ${p.name}`
                    : `Follow ${p.name}${p.spotlight ? ' (presenting)' : ''}`;
                return (
                  <li key={p.id} className={p.spotlight ? 'machine-peer-presenting' : undefined}>
                    <button
                      type="button"
                      disabled={!p.followable}
                      aria-pressed={following === p.id}
                      title={label}
                      aria-label={label}
                      onClick={() =>
                        presenceSend(
                          following === p.id
                            ? { type: 'presence.unfollow' }
                            : { type: 'presence.follow', userId: p.id },
                        )
                      }
                    >
                      <Avatar
                        name={p.name}
                        color={p.color}
                        avatarUrl={m?.avatarUrl ?? null}
                        online
                        label={p.name}
                        size={26}
                      />
                    </button>
                  </li>
                );
              })}
            </ul>
            <PresentMenu />
          </>
        }
      />
      <div className="machine-body">
        <div className="machine-notes">
          {askedBy && <SpotlightAsk name={asking?.name ?? 'Someone'} color={asking?.color ?? '#978365'} />}
          {followed && (
            <p className="machine-following" role="status" style={{ color: followed.color }}>
              Following {followed.name}. Pan or zoom to stop.
              <button type="button" className="link" onClick={onUserMove}>
                Stop following
              </button>
            </p>
          )}
          {error && (
            <p className="message error" role="alert">
              {error}
              {sync === 'failed' && (
                <>
                  {' '}
                  <button type="button" className="link" onClick={() => docSend({ type: 'doc.retry' })}>
                    Try again
                  </button>
                </>
              )}
            </p>
          )}
          {dropped.length > 0 && (
            <p className="message notice" role="status">
              {dropped.join(' ')}
            </p>
          )}
        </div>
        {canvas ?? (
          <div className="canvas-page">
            {sync !== 'failed' && (
              <p className="center" role="status">
                <span className="spinner" aria-hidden="true" /> Opening the machine…
              </p>
            )}
          </div>
        )}
        {definition && shown && (
          <MachineDock
            resetKey={definition}
            userId={user?.id ?? null}
            panels={{
              code: <CodeView canEdit={canEditCanvas} />,
              inspector,
              simulation: simulation && (
                <SimulationPanel actor={simulation} definition={definition} canSend={canSend} />
              ),
              tests: <TestsPanel name={name ?? 'machine'} definition={definition} />,
              timeline: timeline && <TimelinePanel actor={timeline} people={people} canEdit={canEdit} />,
            }}
          />
        )}
      </div>
    </section>
  );
}
