import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Member, Project, RoomChange, RoomData } from '../../src/lib/ports/room.ts';
import { applyChange, EMPTY_ROOM, mergeSnapshot, timestampMicros } from '../../src/lib/room-merge.ts';

/**
 * The room's resync rule: subscribe first, buffer, load the snapshot, merge.
 * Changes newer than the snapshot win, duplicates are dropped, deletes are applied.
 */

const at = (second: number, micros = 0) =>
  `2026-11-22 05:00:${String(second).padStart(2, '0')}.${String(micros).padStart(6, '0')}+00`;
const project = (name: string, updatedAt: string): Project => ({
  id: 'p1',
  name,
  description: '',
  visibility: 'private',
  ownerId: 'u-ada',
  updatedAt,
});
const member = (userId: string, role: Member['role'], updatedAt: string): Member => ({
  projectId: 'p1',
  userId,
  role,
  updatedAt,
});

const snapshot: RoomData = {
  project: project('Traffic light', at(10)),
  members: { 'u-ada': member('u-ada', 'owner', at(1)), 'u-bob': member('u-bob', 'editor', at(10)) },
  profiles: {},
};

describe('timestampMicros', () => {
  it('reads Postgres text and ISO forms to the microsecond', () => {
    expect(timestampMicros('2026-11-22 05:00:10.000001+00')).toBe(timestampMicros('2026-11-22T05:00:10.000001+00:00'));
    expect(timestampMicros('2026-11-22T05:00:10.000002Z') - timestampMicros('2026-11-22T05:00:10.000001Z')).toBe(1);
    expect(timestampMicros('2026-11-22T07:00:10+02:00')).toBe(timestampMicros('2026-11-22T05:00:10Z'));
    expect(timestampMicros('2026-11-22 05:00:10.5+0000')).toBe(timestampMicros('2026-11-22T05:00:10.500000Z'));
  });
});

describe('mergeSnapshot', () => {
  it('a change newer than the snapshot wins', () => {
    const merged = mergeSnapshot(snapshot, [{ table: 'projects', type: 'upsert', row: project('Renamed', at(11)) }]);
    expect(merged.project?.name).toBe('Renamed');
  });

  it('a change the snapshot already contains (same version) is dropped, as is an older one', () => {
    const duplicate: RoomChange = { table: 'projects', type: 'upsert', row: project('Traffic light', at(10)) };
    const older: RoomChange = { table: 'projects', type: 'upsert', row: project('Old name', at(9)) };
    const merged = mergeSnapshot(snapshot, [older, duplicate]);
    expect(merged).toBe(snapshot);
  });

  it('applies deletes older rows, but not to a row re-created after the delete', () => {
    const removeBob: RoomChange = { table: 'project_members', type: 'delete', userId: 'u-bob', committedAt: at(12) };
    expect(mergeSnapshot(snapshot, [removeBob]).members['u-bob']).toBeUndefined();
    const staleDelete: RoomChange = { table: 'project_members', type: 'delete', userId: 'u-bob', committedAt: at(5) };
    expect(mergeSnapshot(snapshot, [staleDelete]).members['u-bob']).toEqual(snapshot.members['u-bob']);
  });

  it('replays in order: removed and invited again ends as a member with the new role', () => {
    const merged = mergeSnapshot(snapshot, [
      { table: 'project_members', type: 'delete', userId: 'u-bob', committedAt: at(12) },
      { table: 'project_members', type: 'upsert', row: member('u-bob', 'viewer', at(13)) },
    ]);
    expect(merged.members['u-bob']?.role).toBe('viewer');
  });

  it('a deleted project empties the room', () => {
    expect(
      mergeSnapshot(snapshot, [{ table: 'projects', type: 'delete', id: 'p1', committedAt: at(20) }]).project,
    ).toBeNull();
    // Another project's delete is not ours.
    expect(mergeSnapshot(snapshot, [{ table: 'projects', type: 'delete', id: 'p2', committedAt: at(20) }])).toBe(
      snapshot,
    );
  });

  it('keeps the newest profile', () => {
    const profile = { id: 'u-bob', displayName: 'Bob', color: '#e5484d', avatarUrl: null, updatedAt: at(3) };
    const first = applyChange(EMPTY_ROOM, { table: 'profiles', type: 'upsert', row: profile });
    const stale = applyChange(first, {
      table: 'profiles',
      type: 'upsert',
      row: { ...profile, displayName: 'Robert', updatedAt: at(2) },
    });
    expect(stale.profiles['u-bob']?.displayName).toBe('Bob');
  });

  it('property: whatever part of the history the snapshot already saw, the merge ends where the full history ends', () => {
    // A history of member changes for three people with increasing versions; the snapshot is the
    // state after some prefix, the buffer is an overlapping suffix (changes seen twice).
    const user = fc.constantFrom('u-1', 'u-2', 'u-3');
    const step = fc.oneof(
      fc.record({
        kind: fc.constant('upsert' as const),
        userId: user,
        role: fc.constantFrom<Member['role']>('editor', 'viewer'),
      }),
      fc.record({ kind: fc.constant('delete' as const), userId: user }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), fc.nat(), fc.nat(), (steps, a, b) => {
        const history: RoomChange[] = steps.map((s, i) =>
          s.kind === 'upsert'
            ? {
                table: 'project_members',
                type: 'upsert',
                row: member(s.userId, s.role, at(10 + Math.floor(i / 10), i)),
              }
            : {
                table: 'project_members',
                type: 'delete',
                userId: s.userId,
                committedAt: at(10 + Math.floor(i / 10), i),
              },
        );
        const seen = history.length === 0 ? 0 : a % (history.length + 1);
        const bufferStart = Math.min(seen, history.length === 0 ? 0 : b % (seen + 1));
        const base: RoomData = { project: null, members: {}, profiles: {} };
        const snap = mergeSnapshot(base, history.slice(0, seen));
        const merged = mergeSnapshot(snap, history.slice(bufferStart));
        expect(merged.members).toEqual(mergeSnapshot(base, history).members);
      }),
    );
  });
});
