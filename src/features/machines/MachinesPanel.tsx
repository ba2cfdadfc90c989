import { useCallback, useState, type FormEvent } from 'react';
import { lookingAtMachine } from '../../../machines/room.machine.ts';
import type { MachineSummary } from '../../lib/ports/document.ts';
import { navigate } from '../navigation/router.ts';
import { EXAMPLE_NAMES } from '../canvas/example-names.ts';
import { Avatar } from '../room/Avatar.tsx';
import { useCanEdit, useMembers, useProjectId } from '../room/room-context.ts';
import { useMachineListSend, useMachineListStatus, useMachines, useOnMachinesCreated } from './machine-list-context.ts';

/**
 * The project's statecharts: open one, see who is on it, create one (blank or from one of
 * Chartroom's own machines), or start the project from all the examples at once.
 */
export function MachinesPanel() {
  const machines = useMachines();
  const { loading, failed, busy, error } = useMachineListStatus();
  const canEdit = useCanEdit();
  const projectId = useProjectId();
  const members = useMembers();
  const list = { send: useMachineListSend() };
  const [confirming, setConfirming] = useState<string | null>(null);

  // A machine this person just created opens at once.
  const openCreated = useCallback(
    (created: MachineSummary[]) => {
      const [first] = created;
      if (created.length === 1 && first) navigate(`/p/${projectId}/m/${first.id}`);
    },
    [projectId],
  );
  useOnMachinesCreated(openCreated);

  const onCreate = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const text = (key: string): string => {
      const value = data.get(key);
      return typeof value === 'string' ? value.trim() : '';
    };
    const name = text('name');
    const from = text('from');
    event.currentTarget.reset();
    if (!from) {
      void import('../../lib/model/empty.ts').then(({ emptyMachine }) =>
        list.send({
          type: 'list.create',
          machines: [{ name: name || 'Untitled machine', definition: emptyMachine(name || 'machine') }],
        }),
      );
      return;
    }
    void import('../canvas/examples.ts').then(({ loadExample }) => {
      const definition = loadExample(from);
      if (definition) list.send({ type: 'list.create', machines: [{ name: name || from, definition }] });
    });
  };
  // The examples (Chartroom's own machines, imported) load only when asked for.
  const startFromExamples = () =>
    void import('../canvas/examples.ts').then(({ loadExample }) =>
      list.send({
        type: 'list.create',
        machines: EXAMPLE_NAMES.flatMap((name) => {
          const definition = loadExample(name);
          return definition ? [{ name, definition }] : [];
        }),
      }),
    );

  return (
    <section className="card room-panel machines-panel" aria-labelledby="machines-title" aria-busy={busy}>
      <h2 id="machines-title">Machines</h2>
      {error && (
        <p className="message error" role="alert">
          {error}{' '}
          {failed ? (
            <button type="button" className="link" onClick={() => list.send({ type: 'list.retry' })}>
              Try again
            </button>
          ) : (
            <button type="button" className="link" onClick={() => list.send({ type: 'list.dismissError' })}>
              Dismiss
            </button>
          )}
        </p>
      )}
      {loading && machines.length === 0 && !failed && <p role="status">Loading machines…</p>}
      {!loading && !failed && machines.length === 0 && (
        <div className="machines-empty">
          <p className="room-muted">No machines yet.</p>
          {canEdit && (
            <button type="button" onClick={startFromExamples} disabled={busy}>
              Start from Chartroom's own machines
            </button>
          )}
        </div>
      )}
      <ul className="machines-list">
        {machines.map((m) => {
          const here = members.filter((p) => p.online && !p.isMe && p.looking === lookingAtMachine(m.id));
          return (
            <li key={m.id} className="machines-row">
              <a href={`/p/${projectId}/m/${m.id}`} className="machines-link">
                {m.name}
              </a>
              <span className="room-muted machines-meta">v{m.version}</span>
              <ul className="room-here" aria-label={`On ${m.name} now`}>
                {here.map((p) => (
                  <li key={p.userId}>
                    <Avatar
                      name={p.name}
                      color={p.color}
                      avatarUrl={p.avatarUrl}
                      online
                      label={`${p.name} is on ${m.name}`}
                      size={22}
                    />
                  </li>
                ))}
              </ul>
              {canEdit &&
                (confirming === m.id ? (
                  <span className="room-confirm">
                    <button
                      type="button"
                      className="danger"
                      disabled={busy}
                      onClick={() => {
                        setConfirming(null);
                        list.send({ type: 'list.delete', machineId: m.id });
                      }}
                    >
                      Delete {m.name}
                    </button>
                    <button type="button" onClick={() => setConfirming(null)}>
                      Keep
                    </button>
                  </span>
                ) : (
                  <button
                    type="button"
                    className="ghost"
                    aria-label={`Delete ${m.name}`}
                    disabled={busy}
                    onClick={() => setConfirming(m.id)}
                  >
                    Delete
                  </button>
                ))}
            </li>
          );
        })}
      </ul>
      {canEdit && (
        <form className="machines-new" onSubmit={onCreate} aria-label="Create a machine">
          <label htmlFor="new-machine-name">New machine</label>
          <input id="new-machine-name" name="name" placeholder="Name" maxLength={120} />
          <select name="from" aria-label="Start from" defaultValue="">
            <option value="">Blank</option>
            {EXAMPLE_NAMES.map((n) => (
              <option key={n} value={n}>
                Example: {n}
              </option>
            ))}
          </select>
          <button type="submit" className="primary" disabled={busy}>
            Create
          </button>
        </form>
      )}
    </section>
  );
}
