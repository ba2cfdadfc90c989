import { useActorRef, useSelector } from '@xstate/react';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ActorRefFrom } from 'xstate';
import type { testsMachine } from '../../../machines/tests.machine.ts';
import type { MachineDefinition } from '../../lib/model/types.ts';
import type { SavedTest, TestRun } from '../../lib/ports/machine-tests.ts';
import {
  coverageFigures,
  coverageSources,
  CoverageTracker,
  exportTestFile,
  sourcesWords,
  staleness,
  statePaths,
  type PathKind,
  type RecordedSimulation,
  type Staleness,
  type TestScript,
} from '../../lib/testing/index.ts';
import { useChildSelector } from '../actor-hooks.ts';
import { useOpenMachine } from '../canvas/open-machine-context.ts';
import { CoverageLists } from './CoverageLists.tsx';
import { useDiagramMarks } from './diagram-marks.ts';
import {
  statesAt,
  useShareLocalPlay,
  useWatchedPlay,
  WatchedPlay,
  WithPlayback,
  type PlaybackRef,
} from './RoomPlayback.tsx';
import { SaveSimulation, type SimulationTest } from './SaveSimulation.tsx';
import { useTestsLogic } from './tests-context.ts';
import './tests.css';

type TestsRef = ActorRefFrom<typeof testsMachine>;
const NO_SIMULATIONS: readonly RecordedSimulation[] = [];

interface Props {
  machineId: string;
  name: string;
  definition: MachineDefinition;
}

/**
 * The Tests region of a machine page: generate paths (in a worker), read each in words,
 * play one on the diagram step by step, save it as a test, run saved tests (results are
 * rows, shown live to the room), see coverage on the diagram and in figures, and export
 * a Vitest file. Not shown where no tests machine is provided.
 */
export function TestsPanel(props: Props) {
  const logic = useTestsLogic();
  if (!logic) return null;
  return <Panel logic={logic} {...props} />;
}

function Panel({ logic, machineId, name, definition }: Props & { logic: typeof testsMachine }) {
  const actor = useActorRef(logic, { input: { machineId } });
  const open = useOpenMachine();
  const docRef = useSelector(open, (s) => s.children.document);
  const version = useChildSelector(docRef, (s) => s.context.doc?.version ?? 0, 0);
  useEffect(() => actor.send({ type: 'tests.definitionChanged', definition, version }), [actor, definition, version]);
  return (
    <WithPlayback machineId={machineId}>
      {(playback) => (
        <PanelBody actor={actor} playback={playback} name={name} definition={definition} version={version} />
      )}
    </WithPlayback>
  );
}

const scriptOf = (s: { start: string[]; steps: TestScript['steps'] }): TestScript => ({
  start: s.start,
  steps: s.steps,
});

function PanelBody({
  actor,
  playback,
  name,
  definition,
  version,
}: {
  actor: TestsRef;
  playback: PlaybackRef | undefined;
  name: string;
  definition: MachineDefinition;
  version: number;
}) {
  const tests = useSelector(actor, (s) => s.context.tests);
  const runs = useSelector(actor, (s) => s.context.runs);
  const paths = useSelector(actor, (s) => s.context.paths);
  const coverageOn = useSelector(actor, (s) => s.context.coverage);
  const selected = useSelector(actor, (s) => s.context.selected);
  const step = useSelector(actor, (s) => s.context.step);
  const error = useSelector(actor, (s) => s.context.error);
  const generating = useSelector(actor, (s) => s.hasTag('generating'));
  const busy = useSelector(actor, (s) => s.hasTag('busy'));
  const loading = useSelector(actor, (s) => s.hasTag('loading'));
  const [kind, setKind] = useState<PathKind>('shortest');
  const targets = useMemo(() => statePaths(definition), [definition]);
  const [target, setTarget] = useState('');

  // Coverage by the recorded simulations and saved tests, kept by a tracker that reruns
  // only the steps an edit touched (src/lib/testing/coverage-tracker.ts).
  const simulations = useSelector(actor, (s) => s.context.simulations ?? NO_SIMULATIONS);
  // A malformed stored test (its row says what is wrong) counts for nothing.
  const sources = useMemo(
    () =>
      coverageSources(
        tests.filter((t) => !t.problem),
        simulations,
      ),
    [tests, simulations],
  );
  const tracker = useRef<CoverageTracker | null>(null);
  tracker.current ??= new CoverageTracker();
  const coverage = useMemo(
    () => (tracker.current as CoverageTracker).compute(definition, sources.runs),
    [definition, sources],
  );
  // Stale only when this version changes what a test gives (src/lib/testing/staleness.ts).
  const stale = useMemo(() => {
    const out = new Map<string, Staleness>();
    for (const t of tests) out.set(t.id, staleness(definition, version, t, runs[t.id] ?? null));
    return out;
  }, [definition, version, tests, runs]);
  const figures = coverageFigures(coverage);
  const untested = coverage.states.all.filter((p) => !coverage.states.covered.has(p));

  // The played script: a generated path or a saved test, and the states of the step shown.
  const script: TestScript | null = useMemo(() => {
    const path = paths.find((p) => p.id === selected);
    if (path) return scriptOf(path);
    const test = tests.find((t) => t.id === selected);
    return test ? test.script : null;
  }, [paths, tests, selected]);
  const shownStep = script ? Math.min(step, script.steps.length) : 0;
  // Played for the room: what this person plays goes out; without a play of their own,
  // the diagram shows what someone else plays (until they stop watching it).
  const title = paths.find((p) => p.id === selected)?.words ?? tests.find((t) => t.id === selected)?.name ?? '';
  const localPlay = useMemo(() => (script ? { title, script, step: shownStep } : null), [title, script, shownStep]);
  useShareLocalPlay(playback, localPlay);
  const watched = useWatchedPlay(playback);
  const played = useMemo(
    () => new Set(script ? statesAt(script, shownStep) : watched ? statesAt(watched.script, watched.step) : []),
    [script, shownStep, watched],
  );
  const region = useRef<HTMLElement>(null);
  const scope = useCallback(
    () => (region.current?.closest('.machine-view') as HTMLElement | null) ?? document.body,
    [],
  );
  const marked = useMemo(
    () => (coverageOn ? { states: coverage.states.covered, transitions: coverage.transitions.covered } : null),
    [coverageOn, coverage],
  );
  useDiagramMarks(scope, marked, played);

  const save = (title: string, s: TestScript) =>
    actor.send({ type: 'tests.save', name: title, script: s, context: null, simulationId: null });
  const saveSimulation = (t: SimulationTest) => actor.send({ type: 'tests.save', ...t });
  const exportFile = () => {
    const sound = tests.filter((t) => !t.problem);
    const list =
      sound.length > 0
        ? sound.map((t) => ({ name: t.name, script: t.script, context: t.context }))
        : paths.map((p) => ({ name: p.words, script: scriptOf(p) }));
    const text = exportTestFile({ name, definition, tests: list });
    const url = URL.createObjectURL(new Blob([text], { type: 'text/typescript' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `${name.replace(/[^\w.-]+/g, '-') || 'machine'}.test.ts`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 0);
  };

  return (
    <section className="tests-panel" role="region" aria-label="Tests" ref={region}>
      <header className="tests-head">
        <h2>Tests</h2>
        <label>
          <span className="visually-hidden">Kind of paths</span>
          <select aria-label="Kind of paths" value={kind} onChange={(e) => setKind(e.target.value as PathKind)}>
            <option value="shortest">Shortest to every state</option>
            <option value="simple">Simple paths to a state</option>
            <option value="cover">Cover every transition</option>
          </select>
        </label>
        {kind === 'simple' && (
          <select aria-label="Target state" value={target} onChange={(e) => setTarget(e.target.value)}>
            <option value="">Target state…</option>
            {targets.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        )}
        <button
          type="button"
          disabled={generating}
          onClick={() => actor.send({ type: 'tests.generate', kind, target: target || null })}
        >
          {generating ? 'Generating…' : 'Generate paths'}
        </button>
        <button type="button" disabled={tests.length === 0 && paths.length === 0} onClick={exportFile}>
          Export tests
        </button>
        <label className="tests-switch">
          <input
            type="checkbox"
            role="switch"
            aria-label="Coverage"
            checked={coverageOn}
            onChange={() => actor.send({ type: 'tests.toggleCoverage' })}
          />
          Coverage
        </label>
      </header>
      {error && (
        <p className="message error" role="alert">
          {error}{' '}
          <button type="button" className="link" onClick={() => actor.send({ type: 'tests.dismissError' })}>
            Dismiss
          </button>
        </p>
      )}
      {coverageOn && (
        <div className="tests-coverage" role="group" aria-label="Coverage figures">
          <p>
            Counted <span data-sources>{sourcesWords(sources)}</span>: States{' '}
            <strong data-figure="states">{figures.states}%</strong> · Transitions{' '}
            <strong data-figure="transitions">{figures.transitions}%</strong> · Guard outcomes{' '}
            <strong data-figure="guards">{figures.guards}%</strong>
          </p>
          {untested.length > 0 && (
            <p className="tests-untested">
              Untested states: <span data-untested>{untested.join(', ')}</span>
            </p>
          )}
          <CoverageLists definition={definition} coverage={coverage} scope={scope} />
        </div>
      )}
      <div className="tests-lists">
        <div>
          <h3>Saved tests</h3>
          <SaveSimulation busy={busy} onSave={saveSimulation} />
          {loading && <p className="tests-empty">Loading…</p>}
          {!loading && tests.length === 0 && <p className="tests-empty">No saved tests yet.</p>}
          <ul aria-label="Saved tests">
            {tests.map((t) => (
              <SavedTestItem
                key={t.id}
                test={t}
                run={runs[t.id]}
                stale={stale.get(t.id) ?? { stale: false }}
                selected={selected === t.id}
                busy={busy}
                onRun={() => actor.send({ type: 'tests.run', testId: t.id })}
                onPlay={() => actor.send({ type: 'tests.select', id: selected === t.id ? null : t.id })}
              />
            ))}
          </ul>
        </div>
        <div>
          <h3>Generated paths</h3>
          {paths.length === 0 && <p className="tests-empty">Generate paths to see them here.</p>}
          <ul aria-label="Generated paths">
            {paths.map((p) => (
              <li key={p.id} className={selected === p.id ? 'is-selected' : undefined}>
                <span className="tests-words">{p.words}</span>
                <span className="tests-actions">
                  <button
                    type="button"
                    aria-pressed={selected === p.id}
                    onClick={() => actor.send({ type: 'tests.select', id: selected === p.id ? null : p.id })}
                  >
                    Play
                  </button>
                  <button type="button" disabled={busy} onClick={() => save(p.words, scriptOf(p))}>
                    Save test
                  </button>
                </span>
              </li>
            ))}
          </ul>
        </div>
      </div>
      {watched && <WatchedPlay playback={playback} play={watched} />}
      {script && (
        <div className="tests-player" role="group" aria-label="Play path">
          <button
            type="button"
            disabled={shownStep === 0}
            onClick={() => actor.send({ type: 'tests.stepTo', step: shownStep - 1 })}
          >
            ◀ Step back
          </button>
          <span role="status">
            Step {shownStep} of {script.steps.length}: {[...played].join(', ') || '—'}
          </span>
          <button
            type="button"
            disabled={shownStep >= script.steps.length}
            onClick={() => actor.send({ type: 'tests.stepTo', step: shownStep + 1 })}
          >
            Step forward ▶
          </button>
        </div>
      )}
    </section>
  );
}

function SavedTestItem(props: {
  test: SavedTest;
  run: TestRun | undefined;
  stale: Staleness;
  selected: boolean;
  busy: boolean;
  onRun: () => void;
  onPlay: () => void;
}) {
  const { test, run, stale } = props;
  const status = run?.status ?? null;
  return (
    <li className={props.selected ? 'is-selected' : undefined} data-test-id={test.id}>
      <span className="tests-words">{test.name}</span>
      {status && (
        <span className={`badge tests-badge ${status}`} data-result={status}>
          {status === 'pass' ? 'Pass' : `Fail at step ${run?.failedStep ?? '?'}`}
        </span>
      )}
      {stale.stale && (
        <span className="badge tests-stale" title={stale.reason}>
          Stale
        </span>
      )}
      {run?.message && <span className="tests-message">{run.message}</span>}
      {test.problem && (
        <span className="tests-message tests-problem" role="alert">
          {test.problem}
        </span>
      )}
      <span className="tests-actions">
        <button type="button" aria-pressed={props.selected} disabled={!!test.problem} onClick={props.onPlay}>
          Play
        </button>
        <button type="button" disabled={props.busy || !!test.problem} onClick={props.onRun}>
          Run
        </button>
      </span>
    </li>
  );
}
