import { useMemo, useState } from 'react';
import type { MachineDefinition } from '../../lib/model/types.ts';
import type { SavedTest, TestRun } from '../../lib/ports/machine-tests.ts';
import {
  coverageFigures,
  exportTestFile,
  sourcesWords,
  statePaths,
  type PathKind,
  type Staleness,
  type TestScript,
} from '../../lib/testing/index.ts';
import { CoverageLists } from './CoverageLists.tsx';
import { WatchedPlay } from './RoomPlayback.tsx';
import { SaveSimulation, type SimulationTest } from './SaveSimulation.tsx';
import {
  useCoverage,
  useCoverageOn,
  useCoverageSources,
  useGeneratedPaths,
  useLocalPlay,
  usePlayedStates,
  useSavedTests,
  useStaleTests,
  useTestRuns,
  useTestsBusy,
  useTestsError,
  useTestsGenerating,
  useTestsLoading,
  useTestsSelected,
  useTestsSend,
  useWatchedPlay,
} from './tests-selectors.ts';
import './tests.css';

interface Props {
  name: string;
  definition: MachineDefinition;
}

const scriptOf = (s: { start: string[]; steps: TestScript['steps'] }): TestScript => ({
  start: s.start,
  steps: s.steps,
});

/**
 * The Tests region of a machine page: generate paths (in a worker), read each in words,
 * play one on the diagram step by step, save it as a test, run saved tests (results are
 * rows, shown live to the room), see coverage on the diagram and in figures, and export
 * a Vitest file. Everything it shows is the open machine's `tests` child (and the room's
 * plays from `testPlayback`), read through the named hooks in tests-selectors.ts; the
 * Diagram draws the coverage and played marks itself.
 */
export function TestsPanel({ name, definition }: Props) {
  const send = useTestsSend();
  const tests = useSavedTests();
  const runs = useTestRuns();
  const paths = useGeneratedPaths();
  const coverageOn = useCoverageOn();
  const coverage = useCoverage();
  const sources = useCoverageSources();
  const stale = useStaleTests();
  const selected = useTestsSelected();
  const error = useTestsError();
  const generating = useTestsGenerating();
  const busy = useTestsBusy();
  const loading = useTestsLoading();
  const play = useLocalPlay();
  const watched = useWatchedPlay();
  const played = usePlayedStates();
  const [kind, setKind] = useState<PathKind>('shortest');
  const targets = useMemo(() => statePaths(definition), [definition]);
  const [target, setTarget] = useState('');
  const figures = coverage ? coverageFigures(coverage) : null;
  const untested = coverage ? coverage.states.all.filter((p) => !coverage.states.covered.has(p)) : [];

  const save = (title: string, s: TestScript) =>
    send({ type: 'tests.save', name: title, script: s, context: null, simulationId: null });
  const saveSimulation = (t: SimulationTest) => send({ type: 'tests.save', ...t });
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
  const scope = () => document.querySelector<HTMLElement>('.machine-view') ?? document.body;

  return (
    <section className="tests-panel" role="region" aria-label="Tests">
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
          onClick={() => send({ type: 'tests.generate', kind, target: target || null })}
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
            onChange={() => send({ type: 'tests.toggleCoverage' })}
          />
          Coverage
        </label>
      </header>
      {error && (
        <p className="message error" role="alert">
          {error}{' '}
          <button type="button" className="link" onClick={() => send({ type: 'tests.dismissError' })}>
            Dismiss
          </button>
        </p>
      )}
      {coverageOn && coverage && figures && (
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
                stale={stale[t.id] ?? { stale: false }}
                selected={selected === t.id}
                busy={busy}
                onRun={() => send({ type: 'tests.run', testId: t.id })}
                onPlay={() => send({ type: 'tests.select', id: selected === t.id ? null : t.id })}
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
                    onClick={() => send({ type: 'tests.select', id: selected === p.id ? null : p.id })}
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
      {watched && <WatchedPlay play={watched} />}
      {play && (
        <div className="tests-player" role="group" aria-label="Play path">
          <button
            type="button"
            disabled={play.step === 0}
            onClick={() => send({ type: 'tests.stepTo', step: play.step - 1 })}
          >
            ◀ Step back
          </button>
          <span role="status">
            Step {play.step} of {play.script.steps.length}: {played.join(', ') || '—'}
          </span>
          <button
            type="button"
            disabled={play.step >= play.script.steps.length}
            onClick={() => send({ type: 'tests.stepTo', step: play.step + 1 })}
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
