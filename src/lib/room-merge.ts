import type { RoomChange, RoomData } from './ports/room.ts';

/**
 * Merging a snapshot with the changes that arrived while it loaded. The room subscribes
 * first, buffers every change, loads the snapshot, then replays the buffer over it:
 * - a change newer than the row it meets wins; an equal or older one is a duplicate
 *   (the snapshot already contains it) and is dropped;
 * - a delete removes the row unless the row is newer than the delete (re-created after);
 * - changes apply in arrival order, which is commit order on one channel.
 * Versions are Postgres timestamps compared at microsecond precision.
 */

/** Microseconds since the epoch from Postgres text ("2026-11-22 05:00:00.123456+00") or ISO. */
export function timestampMicros(text: string): number {
  const match = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(
    text.trim(),
  );
  if (!match) {
    const parsed = Date.parse(text);
    return Number.isNaN(parsed) ? Number.NEGATIVE_INFINITY : parsed * 1000;
  }
  const [, date, time, fraction = '', zone = 'Z'] = match;
  const offset =
    zone === 'Z'
      ? 'Z'
      : zone.length === 3
        ? `${zone}:00`
        : zone.includes(':')
          ? zone
          : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const seconds = Date.parse(`${date}T${time}${offset}`);
  return seconds * 1000 + Number(fraction.padEnd(6, '0'));
}

const newer = (candidate: string, current: string): boolean => timestampMicros(candidate) > timestampMicros(current);

/** Applies one change; returns the same object when nothing changed (cheap equality for views). */
export function applyChange(data: RoomData, change: RoomChange): RoomData {
  switch (change.table) {
    case 'projects': {
      if (change.type === 'upsert') {
        if (data.project && data.project.id !== change.row.id) return data;
        if (data.project && !newer(change.row.updatedAt, data.project.updatedAt)) return data;
        return { ...data, project: change.row };
      }
      if (!data.project || data.project.id !== change.id) return data;
      if (newer(data.project.updatedAt, change.committedAt)) return data;
      return { ...data, project: null };
    }
    case 'project_members': {
      if (change.type === 'upsert') {
        const current = data.members[change.row.userId];
        if (current && !newer(change.row.updatedAt, current.updatedAt)) return data;
        return { ...data, members: { ...data.members, [change.row.userId]: change.row } };
      }
      const current = data.members[change.userId];
      if (!current || newer(current.updatedAt, change.committedAt)) return data;
      const { [change.userId]: _removed, ...members } = data.members;
      return { ...data, members };
    }
    case 'profiles': {
      const current = data.profiles[change.row.id];
      if (current && !newer(change.row.updatedAt, current.updatedAt)) return data;
      return { ...data, profiles: { ...data.profiles, [change.row.id]: change.row } };
    }
  }
}

/** The snapshot with every buffered change replayed over it, in order. */
export function mergeSnapshot(snapshot: RoomData, buffered: readonly RoomChange[]): RoomData {
  return buffered.reduce(applyChange, snapshot);
}

export const EMPTY_ROOM: RoomData = { project: null, members: {}, profiles: {} };
