import type { Observable } from 'rxjs';

/**
 * The room port: one open project, live. Plain data only; the Supabase adapter
 * (src/adapters/supabase/room.ts, members.ts) implements it and tests fake it.
 */

export type Role = 'owner' | 'editor' | 'viewer';
export type Visibility = 'private' | 'link' | 'public';

export interface Project {
  id: string;
  name: string;
  description: string;
  visibility: Visibility;
  ownerId: string;
  /** The row's version: Postgres `updated_at`, kept as text to keep microseconds. */
  updatedAt: string;
}

export interface Member {
  projectId: string;
  userId: string;
  role: Role;
  updatedAt: string;
  /** When they joined the project: earlier members keep their colour (src/lib/room-colors.ts). */
  joinedAt?: string;
}

export interface Profile {
  id: string;
  displayName: string;
  color: string;
  /** Public URL of the avatar image, when the person uploaded one. */
  avatarUrl: string | null;
  updatedAt: string;
}

/** What the room shows: the project, its members, and the profiles of those members. */
export interface RoomData {
  project: Project | null;
  members: Record<string, Member>;
  profiles: Record<string, Profile>;
}

/** A durable change from the database, one row. Deletes carry only the key and when. */
export type RoomChange =
  | { table: 'projects'; type: 'upsert'; row: Project }
  | { table: 'projects'; type: 'delete'; id: string; committedAt: string }
  | { table: 'project_members'; type: 'upsert'; row: Member }
  | { table: 'project_members'; type: 'delete'; userId: string; committedAt: string }
  | { table: 'profiles'; type: 'upsert'; row: Profile };

/** What each person in the room publishes about themselves. */
export interface PresenceMeta {
  userId: string;
  /** What they are looking at (a panel, later a state in a chart), or null. */
  looking: string | null;
  onlineAt: string;
}

export interface RoomPeer {
  userId: string;
  looking: string | null;
  connections: number;
}

/** Facts from a project's channel, past tense. */
export type RoomFact =
  | { type: 'channel.subscribed' }
  | { type: 'channel.errored'; message: string }
  | { type: 'channel.closed' }
  | { type: 'change.received'; change: RoomChange }
  | { type: 'presence.synced'; peers: RoomPeer[] };

export interface Failure {
  code: string;
  message: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: Failure };

/** One open channel to a project: its facts, and presence this client publishes. */
export interface RoomChannel {
  facts$: Observable<RoomFact>;
  /** Publishes (and after every rejoin re-publishes) what this person is looking at. */
  track(looking: string | null): void;
  close(): void;
}

export interface Invite {
  id: string;
  token: string;
  role: Exclude<Role, 'owner'>;
  expiresAt: string;
  maxUses: number | null;
  uses: number;
  revoked: boolean;
}

export interface InviteRequest {
  projectId: string;
  role: Exclude<Role, 'owner'>;
  /** Days until the link stops working. */
  expiresInDays: number;
  maxUses: number | null;
}

export interface AcceptedInvite {
  projectId: string;
  role: Role;
  alreadyMember: boolean;
}

export interface RoomPort {
  open(projectId: string, userId: string): RoomChannel;
  /** The project, its members and their profiles as of now. */
  loadSnapshot(projectId: string): Promise<Result<RoomData>>;
}

export interface MembersPort {
  renameProject(projectId: string, name: string): Promise<Result<null>>;
  changeRole(projectId: string, userId: string, role: Role): Promise<Result<null>>;
  removeMember(projectId: string, userId: string): Promise<Result<null>>;
  listInvites(projectId: string): Promise<Result<Invite[]>>;
  createInvite(request: InviteRequest): Promise<Result<Invite>>;
  revokeInvite(inviteId: string): Promise<Result<null>>;
  acceptInvite(token: string): Promise<Result<AcceptedInvite>>;
}
