import { Subject } from 'rxjs';
import { fromCallback } from 'xstate';
import type { RoomChannelCommand, RoomInput } from '../../machines/room.machine.ts';
import type { Member, Profile, Project, Result, Role, RoomData, RoomFact } from '../../src/lib/ports/room.ts';
import { heldRequests } from './held-requests.ts';

export type RoomRequest = 'loadSnapshot' | 'renameProject' | 'changeRole' | 'removeMember';


/**
 * A fake room port: the test pushes channel facts, sees presence the machine publishes and
 * channels it opens and closes, and settles each request the machine is waiting on.
 */
export function fakeRoom() {
  const facts = new Subject<RoomFact>();
  const tracked: (string | null)[] = [];
  const channels = { opened: 0, closed: 0 };
  const { request, take, calls, pending } = heldRequests<RoomRequest>();
  return {
    actors: {
      roomChannel: fromCallback<RoomChannelCommand, RoomInput & { looking: string | null }>(({ input, sendBack, receive }) => {
        channels.opened += 1;
        tracked.push(input.looking);
        const subscription = facts.subscribe((fact) => sendBack(fact));
        receive((command) => tracked.push(command.looking));
        return () => {
          channels.closed += 1;
          subscription.unsubscribe();
        };
      }),
      loadSnapshot: request<Result<RoomData>, { projectId: string }>('loadSnapshot'),
      renameProject: request<Result<null>, { projectId: string; name: string }>('renameProject'),
      changeRole: request<Result<null>, { projectId: string; userId: string; role: Role }>('changeRole'),
      removeMember: request<Result<null>, { projectId: string; userId: string }>('removeMember'),
    },
    channels,
    tracked,
    calls,
    isOpen: (name: RoomRequest) => pending.has(name),
    emit: (fact: RoomFact) => facts.next(fact),
    async settle(name: RoomRequest, output: unknown) {
      take(name).resolve(output);
      await settle();
    },
    async fail(name: RoomRequest, error: unknown) {
      take(name).reject(error);
      await settle();
    },
  };
}

export async function settle(): Promise<void> {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
}

export const at = (second: number) => `2026-11-22 05:00:${String(second).padStart(2, '0')}.000000+00`;
export const ME = 'u-ada';
export const BOB = 'u-bob';
export const PROJECT = 'p-1';

export const project = (name: string, updatedAt: string): Project => ({ id: PROJECT, name, description: '', visibility: 'private', ownerId: ME, updatedAt });
export const member = (userId: string, role: Role, updatedAt: string): Member => ({ projectId: PROJECT, userId, role, updatedAt });
export const profile = (id: string, displayName: string): Profile => ({ id, displayName, color: '#0090ff', avatarUrl: null, updatedAt: at(0) });

export const snapshot: RoomData = {
  project: project('Traffic light', at(10)),
  members: { [ME]: member(ME, 'owner', at(1)), [BOB]: member(BOB, 'editor', at(10)) },
  profiles: { [ME]: profile(ME, 'ada'), [BOB]: profile(BOB, 'bob') },
};

export const loaded: Result<RoomData> = { ok: true, value: snapshot };
export const notFound: Result<RoomData> = { ok: false, error: { code: 'not_found', message: "This project doesn't exist, or you don't have access to it." } };
export const refused: Result<null> = { ok: false, error: { code: 'forbidden', message: "You don't have permission to change this member's role." } };
export const accepted: Result<null> = { ok: true, value: null };
