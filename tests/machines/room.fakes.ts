import { Subject } from 'rxjs';
import { fromCallback, type AnyEventObject } from 'xstate';
import type { invitesMachine } from '../../machines/room/invites.machine.ts';
import type { machineListMachine } from '../../machines/room/machine-list.machine.ts';
import type { OpenMachineInput, openMachineMachine } from '../../machines/open-machine/open-machine.machine.ts';
import type { RoomChannelCommand, RoomChannelInput, RouteFact, RouteInput } from '../../machines/room/room.machine.ts';
import type { Member, Profile, Project, Result, Role, RoomData, RoomFact } from '../../src/lib/ports/room.ts';
import { heldRequests } from './held-requests.ts';

export type RoomRequest = 'loadSnapshot' | 'renameProject' | 'changeRole' | 'removeMember';

/**
 * A fake room port: the test pushes channel facts, sees presence the machine publishes and
 * channels it opens and closes, and settles each request the machine is waiting on.
 */
/**
 * A child of the room that only records its life and what it is told; the child machines
 * have their own tests. Typed as the child it stands in for (a test double, by design).
 */
function recorder<TLogic>(log: { started: unknown[]; stopped: number; received: AnyEventObject[] }): TLogic {
  return fromCallback<AnyEventObject, unknown>(({ input, receive }) => {
    log.started.push(input);
    receive((event) => log.received.push(event));
    return () => {
      log.stopped += 1;
    };
  }) as unknown as TLogic;
}

export function fakeRoom() {
  const facts = new Subject<RoomFact>();
  const routes = new Subject<RouteFact>();
  const children = {
    machineList: { started: [] as unknown[], stopped: 0, received: [] as AnyEventObject[] },
    invites: { started: [] as unknown[], stopped: 0, received: [] as AnyEventObject[] },
    openMachine: { started: [] as OpenMachineInput[], stopped: 0, received: [] as AnyEventObject[] },
  };
  const tracked: (string | null)[] = [];
  const channels = { opened: 0, closed: 0 };
  const { request, take, calls, pending } = heldRequests<RoomRequest>();
  return {
    actors: {
      roomChannel: fromCallback<RoomChannelCommand, RoomChannelInput>(({ input, sendBack, receive }) => {
        channels.opened += 1;
        tracked.push(input.looking);
        const subscription = facts.subscribe((fact) => sendBack(fact));
        receive((command) => tracked.push(command.looking));
        return () => {
          channels.closed += 1;
          subscription.unsubscribe();
        };
      }),
      // The page's address: the test says which machine page is entered or left.
      route: fromCallback<RouteFact, RouteInput>(({ sendBack }) => {
        const subscription = routes.subscribe((fact) => sendBack(fact));
        return () => subscription.unsubscribe();
      }),
      loadSnapshot: request<Result<RoomData>, { projectId: string }>('loadSnapshot'),
      renameProject: request<Result<null>, { projectId: string; name: string }>('renameProject'),
      changeRole: request<Result<null>, { projectId: string; userId: string; role: Role }>('changeRole'),
      removeMember: request<Result<null>, { projectId: string; userId: string }>('removeMember'),
      machineList: recorder<typeof machineListMachine>(children.machineList),
      invites: recorder<typeof invitesMachine>(children.invites),
      openMachine: recorder<typeof openMachineMachine>(children.openMachine),
    },
    children,
    channels,
    tracked,
    calls,
    isOpen: (name: RoomRequest) => pending.has(name),
    emit: (fact: RoomFact) => facts.next(fact),
    route: (fact: RouteFact) => routes.next(fact),
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
/** The room's input in every test: what a machine's document would get is not the room's concern. */
export const ROOM_INPUT = {
  projectId: PROJECT,
  userId: ME,
  document: { clientId: 'tab-1', model: null as never, newBatchId: () => 'batch-1' },
};

export const project = (name: string, updatedAt: string): Project => ({
  id: PROJECT,
  name,
  description: '',
  visibility: 'private',
  ownerId: ME,
  updatedAt,
});
export const member = (userId: string, role: Role, updatedAt: string): Member => ({
  projectId: PROJECT,
  userId,
  role,
  updatedAt,
});
export const profile = (id: string, displayName: string): Profile => ({
  id,
  displayName,
  color: '#0090ff',
  avatarUrl: null,
  updatedAt: at(0),
});

export const snapshot: RoomData = {
  project: project('Traffic light', at(10)),
  members: { [ME]: member(ME, 'owner', at(1)), [BOB]: member(BOB, 'editor', at(10)) },
  profiles: { [ME]: profile(ME, 'ada'), [BOB]: profile(BOB, 'bob') },
};

export const loaded: Result<RoomData> = { ok: true, value: snapshot };
export const notFound: Result<RoomData> = {
  ok: false,
  error: { code: 'not_found', message: "This project doesn't exist, or you don't have access to it." },
};
export const refused: Result<null> = {
  ok: false,
  error: { code: 'forbidden', message: "You don't have permission to change this member's role." },
};
export const accepted: Result<null> = { ok: true, value: null };
