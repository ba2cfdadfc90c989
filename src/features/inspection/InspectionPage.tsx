import { memo, useCallback, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { fitViewport, type FitViewport } from '../../lib/layout/fit.ts';
import { actorTree, type InspectionLogRow } from '../../lib/inspection/replay.ts';
import type { Json } from '../../lib/model/types.ts';
import { activePathsOf } from '../../lib/simulation/index.ts';
import { Diagram } from '../canvas/Diagram.tsx';
import { HomeLink } from '../canvas/MachineBar.tsx';
import { useProjectName } from '../room/room-context.ts';
import { SessionBar } from '../session/SessionBar.tsx';
import { JsonTree } from '../simulation/JsonTree.tsx';
import {
  useInspection,
  useInspectionBusy,
  useInspectionError,
  useInspectionLayout,
  useInspectionSend,
  useInspectionStatus,
  useActorConfig,
  useInspectionView,
} from './inspection-context.ts';
import { FollowPanel } from './FollowPanel.tsx';
import { SourcesPanel } from './SourcesPanel.tsx';
// The diagram's own styles (shapes, active states), loaded with the canvas elsewhere.
import '../canvas/canvas.css';
import '../simulation/simulation.css';
import './inspection.css';

const VIEWPORT = { x: 16, y: 16, zoom: 0.9 };
const NOOP = () => undefined;

/**
 * Watch your app, drawn like the machine page: one slim bar (home, project › Watch your
 * app, the replay, the account), the picked actor's machine on the whole canvas (the same
 * Diagram, active states filled), and one side panel: the sessions, the actor tree, the
 * context, the event log, saving the machine, the sources and follow mode. Live or
 * replayed to any position. Payloads are data: rendered as text, never as HTML.
 */
export function InspectionPage({ ingestUrl, projectHref }: { ingestUrl: string; projectHref: string }) {
  const status = useInspectionStatus();
  const error = useInspectionError();
  const send = useInspectionSend();
  return (
    <div className="inspect-page">
      <InspectBar projectHref={projectHref} live={status === 'ready'} />
      {status === 'loading' && (
        <p className="center" role="status">
          <span className="spinner" aria-hidden="true" /> Loading inspection…
        </p>
      )}
      {status === 'failed' && (
        <section className="card inspect-failed">
          <p className="message error" role="alert">
            {error}
          </p>
          <button type="button" onClick={() => send({ type: 'inspection.retry' })}>
            Try again
          </button>
        </section>
      )}
      {status === 'ready' && (
        <div className="inspect-body">
          <section className="inspect-canvas" aria-label="Diagram">
            <CanvasView />
            {error && (
              <p className="message error inspect-error" role="alert">
                {error}{' '}
                <button type="button" className="link" onClick={() => send({ type: 'inspection.dismissError' })}>
                  Dismiss
                </button>
              </p>
            )}
          </section>
          <aside className="inspect-panel" aria-label="Inspection">
            <Sessions />
            <SessionDetails />
            <SourcesPanel ingestUrl={ingestUrl} />
            <FollowPanel />
          </aside>
        </div>
      )}
    </div>
  );
}

/** The slim bar: home, the breadcrumb back to the project, the replay of the picked session, the account. */
function InspectBar({ projectHref, live }: { projectHref: string; live: boolean }) {
  const projectName = useProjectName();
  return (
    <header className="machine-bar inspect-bar">
      <HomeLink />
      <nav className="machine-crumbs" aria-label="Breadcrumb">
        <a className="machine-crumb-project" href={projectHref} title={`Back to ${projectName ?? 'the project'}`}>
          {projectName ?? 'Project'}
        </a>
        <span className="machine-crumb-sep" aria-hidden="true">
          ›
        </span>
        <h1 id="inspect-title">Watch your app</h1>
      </nav>
      {live && <Replay />}
      <SessionBar />
    </header>
  );
}

/** The picked session's position: a scrubber over its events, and the way back to live. */
function Replay() {
  const sessionId = useInspection((c) => c.sessionId);
  const following = useInspection((c) => c.position === null);
  const view = useInspectionView();
  const send = useInspectionSend();
  if (!sessionId) return <span className="inspect-replay" />;
  return (
    <div className="inspect-replay" aria-label="Replay">
      <input
        type="range"
        aria-label="Position"
        min={0}
        max={view.total}
        value={view.position}
        onChange={(e) => send({ type: 'inspection.scrub', position: Number(e.target.value) })}
      />
      <span data-testid="inspect-position">
        {view.position} / {view.total}
      </span>
      <button type="button" disabled={following} onClick={() => send({ type: 'inspection.followLive' })}>
        {following ? 'Following live' : 'Follow live'}
      </button>
    </div>
  );
}

function Sessions() {
  const sessions = useInspection((c) => c.sessions);
  const picked = useInspection((c) => c.sessionId);
  const send = useInspectionSend();
  return (
    <section className="inspect-section" aria-labelledby="inspect-sessions-title">
      <h2 id="inspect-sessions-title">Sessions</h2>
      <ul className="inspect-list" aria-label="Sessions">
        {sessions.map((s) => (
          <li key={s.id}>
            <button
              type="button"
              className="inspect-pick"
              aria-pressed={s.id === picked}
              onClick={() => send({ type: 'inspection.selectSession', sessionId: s.id })}
            >
              {new Date(s.startedAt).toLocaleTimeString()} · {s.eventCount} events {s.endedAt ? '(ended)' : '(live)'}
            </button>
          </li>
        ))}
        {sessions.length === 0 && <li className="muted">No sessions yet: run your app with the snippet.</li>}
      </ul>
    </section>
  );
}

/** The canvas: the picked actor's machine, or what to pick first. */
function CanvasView() {
  const sessionId = useInspection((c) => c.sessionId);
  const actorId = useInspection((c) => c.actorId);
  const view = useInspectionView();
  const config = useActorConfig(view, actorId);
  const picked = view.actors.find((a) => a.sessionId === actorId) ?? null;
  if (!sessionId) return <p className="inspect-empty muted">Pick a session to watch.</p>;
  return <ActorDiagram value={picked?.value ?? null} config={config} />;
}

/** The picked session's actors, the picked actor's context and saving it, and the event log. */
function SessionDetails() {
  const sessionId = useInspection((c) => c.sessionId);
  const actorId = useInspection((c) => c.actorId);
  const view = useInspectionView();
  const send = useInspectionSend();
  const tree = useMemo(() => actorTree(view.actors), [view.actors]);
  const config = useActorConfig(view, actorId);
  if (!sessionId) return null;
  const picked = view.actors.find((a) => a.sessionId === actorId) ?? null;
  return (
    <>
      <section className="inspect-section" aria-labelledby="inspect-actors-title">
        <h2 id="inspect-actors-title">Actors</h2>
        <ul className="inspect-tree" aria-label="Actors">
          {tree.map(({ actor, depth }) => (
            <li key={actor.sessionId} style={{ paddingLeft: `${depth * 1.2}rem` }}>
              <button
                type="button"
                className="inspect-pick"
                aria-pressed={actor.sessionId === actorId}
                onClick={() => send({ type: 'inspection.selectActor', actorId: actor.sessionId })}
              >
                {actor.name}
              </button>{' '}
              <span className="muted">{actor.sessionId}</span>
            </li>
          ))}
        </ul>
      </section>
      {picked && (
        // Not labelled by its heading: the tree itself is the region named Context.
        <section className="inspect-section">
          <h2>Context</h2>
          <JsonTree value={(picked.context ?? null) as Json} label="Context" />
        </section>
      )}
      {config && <SaveMachine config={config} />}
      <EventLog chunks={view.logChunks} />
    </>
  );
}

/** Saving the picked actor's machine into the project. */
function SaveMachine({ config }: { config: Record<string, unknown> }) {
  const busy = useInspectionBusy();
  const send = useInspectionSend();
  const [name, setName] = useState('');
  return (
    <form
      className="inspect-save"
      onSubmit={(e) => {
        e.preventDefault();
        send({ type: 'inspection.saveMachine', name, config });
      }}
    >
      <input
        aria-label="Machine name"
        value={name}
        placeholder={typeof config.id === 'string' ? config.id : 'machine'}
        onChange={(e) => setName(e.target.value)}
      />
      <button type="submit" disabled={busy !== null || name.trim() === ''}>
        Save as machine
      </button>
    </form>
  );
}

/** Memoised: a live event that does not change the picked actor's value leaves the diagram alone. */
const ActorDiagram = memo(function ActorDiagram({
  value,
  config,
}: {
  value: unknown;
  config: Record<string, unknown> | null;
}) {
  const layout = useInspectionLayout();
  const actorId = useInspection((c) => c.actorId);
  const frame = useRef<HTMLDivElement>(null);
  const [viewport, setViewport] = useState<FitViewport>(VIEWPORT);
  const shown = layout && layout.actorId === actorId ? layout : null;
  const fit = useCallback(() => {
    const el = frame.current;
    if (!el || !shown) return;
    setViewport(
      fitViewport(
        { x: 0, y: 0, width: shown.layout.width, height: shown.layout.height },
        el.clientWidth,
        el.clientHeight,
      ),
    );
  }, [shown]);
  // Fit when a machine is first shown (a new actor, or its diagram laid out again), and
  // again whenever the canvas changes size (the window, the panel): nobody pans this view.
  useLayoutEffect(() => {
    fit();
    const el = frame.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => fit());
    observer.observe(el);
    return () => observer.disconnect();
  }, [fit]);
  // Keyed by the value's text: each snapshot brings a new object, often for the same state,
  // and the diagram should only redraw when the active states really change.
  const valueText = JSON.stringify(value ?? null);
  const activePaths = useMemo(() => {
    const shown: unknown = JSON.parse(valueText);
    return typeof shown === 'string' || (typeof shown === 'object' && shown !== null)
      ? activePathsOf(shown as never)
      : [];
  }, [valueText]);
  if (!actorId) return <p className="inspect-empty muted">Pick an actor to see its machine.</p>;
  return (
    <div className="inspect-diagram">
      {shown ? (
        <div className="inspect-diagram-frame" data-testid="inspect-diagram" ref={frame}>
          <button type="button" className="inspect-fit" onClick={fit}>
            Fit
          </button>
          <Diagram
            definition={shown.definition}
            layout={shown.layout}
            viewport={viewport}
            selection={[]}
            editing={null}
            mode="idle"
            connect={null}
            canEdit={false}
            peers={[]}
            send={NOOP}
            onKeyDown={NOOP}
            activePaths={activePaths}
          />
        </div>
      ) : (
        <p className="inspect-empty muted">
          {config ? 'Drawing the machine…' : 'This actor has no machine definition.'}
        </p>
      )}
    </div>
  );
});

function EventLog({ chunks }: { chunks: InspectionLogRow[][] }) {
  return (
    <section className="inspect-section" aria-labelledby="inspect-events-title">
      <h2 id="inspect-events-title">Events</h2>
      <ol className="inspect-log" aria-label="Event log">
        {chunks.map((rows) => (
          <LogChunk key={rows[0]!.seq} rows={rows} />
        ))}
      </ol>
    </section>
  );
}

/**
 * A run of log rows. A full chunk keeps its identity for good (live-fold.ts), so a live event
 * renders only the last chunk, whatever the log's length.
 */
const LogChunk = memo(function LogChunk({ rows }: { rows: InspectionLogRow[] }) {
  return rows.map((row) => (
    <LogRow key={row.seq} type={row.type} sourceId={row.sourceId} targetId={row.targetId} payload={row.payload} />
  ));
});

/** One log row; memoised, so a live event renders only the new rows (payloads stay text). */
const LogRow = memo(function LogRow({
  type,
  sourceId,
  targetId,
  payload,
}: {
  type: string;
  sourceId: string | null;
  targetId: string;
  payload: unknown;
}) {
  return (
    <li>
      <span className="inspect-route">
        {sourceId ?? '(outside)'} → {targetId}
      </span>{' '}
      <strong>{type}</strong>
      <pre>{JSON.stringify(payload)}</pre>
    </li>
  );
});
