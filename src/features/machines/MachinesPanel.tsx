import { useCallback, useState, type FormEvent } from 'react';
import { lookingAtMachine } from '../../../machines/room/room.machine.ts';
import type { MachineSummary } from '../../lib/ports/document.ts';
import { navigate } from '../navigation/router.ts';
import { EXAMPLE_NAMES } from '../canvas/example-names.ts';
import { MachineCard, type CardMode } from './MachineCard.tsx';
import { useCanEdit, useMembers, useProjectId, type MemberView } from '../room/room-context.ts';
import { useMachineListSend, useMachineListStatus, useMachines, useOnMachinesCreated } from './machine-list-context.ts';

/**
 * The project's statecharts: open one, see who is on it, create one (blank or from one of
 * Chartroom's own machines), or start the project from all the examples at once.
 */
/** Who last changed a machine, as the card names them: "you", a member's name, or a former member. */
function changerName(members: MemberView[], m: MachineSummary): string | null {
  const by = m.lastChange?.by;
  if (by === undefined || members.length === 0) return null;
  if (by === null) return 'a former member';
  const who = members.find((p) => p.userId === by);
  return who ? (who.isMe ? 'you' : who.name) : 'a former member';
}

export function MachinesPanel() {
  const machines = useMachines();
  const { loading, failed, busy, error } = useMachineListStatus();
  const canEdit = useCanEdit();
  const projectId = useProjectId();
  const members = useMembers();
  const list = { send: useMachineListSend() };
  // The one card whose menu, delete confirmation or rename field is open.
  const [open, setOpen] = useState<{ id: string; kind: CardMode } | null>(null);
  const now = Date.now();

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
      <ul className="machines-grid" aria-label="Machines">
        {machines.map((m) => (
          <MachineCard
            key={m.id}
            machine={m}
            href={`/p/${projectId}/m/${m.id}`}
            here={members.filter((p) => p.online && !p.isMe && p.looking === lookingAtMachine(m.id))}
            changedBy={changerName(members, m)}
            canEdit={canEdit}
            busy={busy}
            now={now}
            open={open?.id === m.id ? open.kind : null}
            setOpen={(kind) => setOpen(kind ? { id: m.id, kind } : null)}
            onDelete={() => list.send({ type: 'list.delete', machineId: m.id })}
            onRename={(name) => list.send({ type: 'list.rename', machineId: m.id, name })}
          />
        ))}
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
