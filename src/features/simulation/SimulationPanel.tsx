import { useMemo, useState } from 'react';
import type { JsonObject, MachineDefinition } from '../../lib/model/types.ts';
import { parsePayload, rerunOnDefinition, sameJson } from '../../lib/simulation/index.ts';
import { JsonTree } from './JsonTree.tsx';
import {
  useSimActivePaths,
  useSimError,
  useSimGuardNames,
  useSimGuards,
  useSimLog,
  useSimMode,
  useSimOptions,
  useSimPosition,
  useSimSimulation,
  useSimStep,
  type SimulationActor,
} from './simulation-selectors.ts';
import { threadsByStep, type ThreadMark } from '../../lib/comments/history-anchors.ts';
import { useCanComment, useCommentsSend, useThreads } from '../comments/comments-selectors.ts';
import './simulation.css';
import { EntryComments } from '../comments/EntryComments.tsx';

interface Props {
  actor: SimulationActor;
  /** The machine as it is now, to notice that a running simulation's version is out of date. */
  definition: MachineDefinition;
  /** Members send events and start simulations; guests watch. */
  canSend: boolean;
}

/**
 * The shared simulation of one machine: start it, send events (enabled ones now, the
 * others disabled), guard switches, the context as a tree, the actions each step ran,
 * the log, and replay. Views only send intents to the simulation actor.
 */
export function SimulationPanel({ actor, definition, canSend }: Props) {
  const mode = useSimMode(actor);
  const error = useSimError(actor);
  const simulation = useSimSimulation(actor);
  return (
    <section className="sim-panel" role="region" aria-label="Simulation">
      <header className="sim-head">
        <h2>Simulation</h2>
        {canSend && (
          <button
            type="button"
            disabled={mode === 'busy' || mode === 'loading'}
            onClick={() => actor.send({ type: 'sim.start', context: null })}
          >
            Simulate
          </button>
        )}
      </header>
      {error && (
        <p className="message error" role="alert">
          {error}{' '}
          <button type="button" className="link" onClick={() => actor.send({ type: 'sim.dismissError' })}>
            Dismiss
          </button>
        </p>
      )}
      {mode === 'loading' && <p role="status">Looking for a running simulation…</p>}
      {mode === 'idle' && (
        <p className="sim-empty">
          {canSend ? 'No simulation yet. Press Simulate to run this machine together.' : 'No simulation is running.'}
        </p>
      )}
      {simulation && mode !== 'loading' && <OpenSimulation actor={actor} definition={definition} canSend={canSend} />}
    </section>
  );
}

function OpenSimulation({ actor, definition, canSend }: Props) {
  const simulation = useSimSimulation(actor);
  const step = useSimStep(actor);
  const { position, last, playing, syncing } = useSimPosition(actor);
  const replaying = position !== null;
  const running = simulation?.status === 'running';
  const sendable = canSend && running;
  return (
    <div className="sim-body">
      <p className="sim-meta" role="status">
        Version {simulation?.machineVersion} · step {position ?? last} of {last}
        {replaying ? ' (replaying)' : ''}
        {syncing ? ' · catching up…' : ''}
        {running ? '' : ' · ended'}
        {step ? ` · ${step.now} ms simulated` : ''}
        {step?.done ? ' · finished' : ''}
      </p>
      {simulation && !sameJson(simulation.definition, definition) && (
        <ChangedNotice actor={actor} definition={definition} canSend={canSend} />
      )}
      {sendable ? (
        <EventButtons actor={actor} replaying={replaying} />
      ) : (
        <p className="sim-watching">
          {canSend ? 'This simulation has ended: fork it to go on.' : 'You are watching: members send events.'}
        </p>
      )}
      {sendable && (
        <button
          type="button"
          disabled={(step?.timers ?? 0) === 0}
          onClick={() => actor.send({ type: 'sim.advanceTime' })}
          title="Fire the next delayed transition now"
        >
          Advance time
        </button>
      )}
      <div className="sim-replay" role="group" aria-label="Replay">
        <button
          type="button"
          disabled={last === 0 || position === 0}
          onClick={() => actor.send({ type: 'sim.stepBack' })}
        >
          Step back
        </button>
        {playing ? (
          <button type="button" onClick={() => actor.send({ type: 'sim.pause' })}>
            Pause
          </button>
        ) : (
          <button type="button" disabled={last === 0} onClick={() => actor.send({ type: 'sim.play' })}>
            Play
          </button>
        )}
        <button type="button" disabled={!replaying} onClick={() => actor.send({ type: 'sim.stepForward' })}>
          Step forward
        </button>
        <input
          type="range"
          aria-label="Replay position"
          min={0}
          max={last}
          value={position ?? last}
          onChange={(e) => actor.send({ type: 'sim.scrub', step: Number(e.target.value) })}
        />
        {canSend && (
          <button type="button" onClick={() => actor.send({ type: 'sim.fork' })}>
            Fork from here
          </button>
        )}
      </div>
      <StepDetails actor={actor} />
      <SimLog actor={actor} />
    </div>
  );
}

function ChangedNotice({ actor, definition, canSend }: Props) {
  const simulation = useSimSimulation(actor);
  const rows = useSimLog(actor);
  // A version XState refuses (midway through a peer's big paste) gets XState's reason, not a throw.
  const rerun = useMemo(() => {
    if (!simulation) return null;
    const setup = { definition: simulation.definition, context: simulation.context, guards: simulation.guards };
    return rerunOnDefinition(
      setup,
      rows.map((r) => r.entry),
      definition,
    );
  }, [simulation, rows, definition]);
  const stale = rerun?.ok ? rerun.marks.filter((m) => m.noLongerApplies).map((m) => m.seq) : [];
  return (
    <div className="message notice sim-changed" role="status">
      The machine changed since this simulation started.
      {rerun && !rerun.ok
        ? ` This version cannot run yet (${rerun.refused}).`
        : stale.length > 0
          ? ` On this version, event${stale.length === 1 ? '' : 's'} ${stale.map((s) => `#${s}`).join(', ')} no longer appl${stale.length === 1 ? 'ies' : 'y'}.`
          : ' Every event still applies.'}
      {canSend && rerun?.ok !== false && (
        <button type="button" onClick={() => actor.send({ type: 'sim.rerun' })}>
          Re-run on this version
        </button>
      )}
    </div>
  );
}

function EventButtons({ actor, replaying }: { actor: SimulationActor; replaying: boolean }) {
  const options = useSimOptions(actor);
  const guardNames = useSimGuardNames(actor);
  const guards = useSimGuards(actor);
  const [payloadText, setPayloadText] = useState('');
  const payload = parsePayload(payloadText);
  return (
    <div className="sim-send">
      <div className="sim-events" role="group" aria-label="Events">
        {options.length === 0 && <span className="sim-empty">This machine has no events.</span>}
        {options.map((o) => (
          <button
            key={o.type}
            type="button"
            className={o.enabled ? 'sim-event enabled' : 'sim-event'}
            disabled={!o.enabled || !payload.ok}
            title={replaying ? 'Sends at the live end' : undefined}
            onClick={() =>
              payload.ok && actor.send({ type: 'sim.send', eventType: o.type, payload: payload.value as JsonObject })
            }
          >
            {o.type}
          </button>
        ))}
      </div>
      <label className="sim-payload">
        Event payload (JSON)
        <textarea
          value={payloadText}
          onChange={(e) => setPayloadText(e.target.value)}
          placeholder='{"amount": 3}'
          rows={2}
          aria-invalid={!payload.ok}
          spellCheck={false}
        />
      </label>
      {!payload.ok && (
        <p className="inline-error" role="alert">
          {payload.message}
        </p>
      )}
      {guardNames.length > 0 && (
        <fieldset className="sim-guards">
          <legend>Guards</legend>
          {guardNames.map((name) => (
            <label key={name}>
              <input
                type="checkbox"
                role="switch"
                checked={guards[name] === true}
                onChange={(e) => actor.send({ type: 'sim.setGuard', name, value: e.target.checked })}
              />
              {name}
            </label>
          ))}
        </fieldset>
      )}
    </div>
  );
}

function StepDetails({ actor }: { actor: SimulationActor }) {
  const step = useSimStep(actor);
  const active = useSimActivePaths(actor);
  if (!step) return null;
  return (
    <div className="sim-step">
      <h3>Active states</h3>
      <ul className="sim-active">
        {active.map((p) => (
          <li key={p}>{p}</li>
        ))}
      </ul>
      {step.children.length > 0 && (
        <>
          <h3>Invoked actors</h3>
          <ul>
            {step.children.map((c) => (
              <li key={c}>{c}</li>
            ))}
          </ul>
        </>
      )}
      <h3>Actions this step</h3>
      {step.actions.length === 0 ? (
        <p className="sim-empty">None</p>
      ) : (
        <ol className="sim-actions">
          {step.actions.map((a, i) => (
            <li key={i}>{a.type}</li>
          ))}
        </ol>
      )}
      <h3>Context</h3>
      <JsonTree value={step.context} label="Context" />
    </div>
  );
}

const IGNORED_TEXT = {
  not_enabled: 'ignored: not enabled',
  reserved_type: 'ignored: reserved',
  no_timer: 'ignored: no timer',
  machine_done: 'ignored: machine finished',
  machine_error: 'ignored: machine stopped (its eventless transitions loop)',
} as const;

function SimLog({ actor }: { actor: SimulationActor }) {
  const rows = useSimLog(actor);
  const { position } = useSimPosition(actor);
  // Comment threads on this run's steps: a marker with their count on each, and Comment for members.
  const runId = useSimSimulation(actor)?.id ?? null;
  const threads = useThreads();
  const marks = useMemo(
    () => (runId ? threadsByStep(threads, runId) : new Map<number, ThreadMark>()),
    [threads, runId],
  );
  const canComment = useCanComment() && runId !== null;
  const comments = useCommentsSend();
  return (
    <>
      <h3>Log</h3>
      <ol className="sim-log" aria-label="Simulation log">
        {rows.map(({ entry, step }) => (
          <li
            key={entry.seq}
            className={entry.seq === position ? 'is-current' : undefined}
            data-ignored={step.ignored ? 'true' : undefined}
          >
            <button type="button" className="link" onClick={() => actor.send({ type: 'sim.scrub', step: entry.seq })}>
              #{entry.seq} {entry.kind === 'time' ? 'Advance time' : entry.type}
            </button>
            {Object.keys(entry.payload).length > 0 && <code>{JSON.stringify(entry.payload)}</code>}
            {step.ignored && <span className="sim-ignored"> ({IGNORED_TEXT[step.ignored]})</span>}
            <EntryComments
              what="this step"
              anchorKey={`step:${runId}:${entry.seq}`}
              mark={marks.get(entry.seq)}
              onShow={(threadId) => comments({ type: 'comments.focus', threadId })}
              onComment={
                canComment
                  ? () =>
                      comments({ type: 'comments.compose', anchor: { kind: 'step', value: `${runId}:${entry.seq}` } })
                  : undefined
              }
            />
          </li>
        ))}
      </ol>
    </>
  );
}
