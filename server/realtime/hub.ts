import { encodeJson, encodeUserBroadcast, type UserBroadcast, type Vsn } from './protocol.ts';
import { TopicPresence, type PresenceDiff } from './presence.ts';

/** What the hub needs of a connection: its protocol version and a way to send a frame. */
export interface Outlet {
  readonly vsn: Vsn;
  send(frame: string | Buffer, binary: boolean): void;
}

/** One joined channel as the hub sees it. */
export interface Member {
  readonly outlet: Outlet;
  /** False on a private channel whose read policy refused the extension. */
  canRead(extension: 'broadcast' | 'presence'): boolean;
  /** True when the member was already sent this stored message on join (replay). */
  alreadyReplayed?(id: string): boolean;
}

/** A broadcast either as a JSON payload ({type, event, payload, meta?}) or as raw user bytes. */
export type BroadcastMessage =
  | { kind: 'json'; payload: Record<string, unknown> }
  | { kind: 'user'; user: Pick<UserBroadcast, 'event' | 'encoding' | 'body' | 'metadata' | 'json'> };

interface Topic {
  subTopic: string;
  isPrivate: boolean;
  members: Set<Member>;
  presence: TopicPresence<Member>;
}

/** Public and private channels of the same name are different topics, as on hosted. */
export function topicKey(subTopic: string, isPrivate: boolean): string {
  return `${isPrivate ? 'private' : 'public'}:${subTopic}`;
}

type Frame = { data: string | Buffer; binary: boolean } | null;

/** Encodes a broadcast once per protocol version; every recipient shares the bytes. */
function encoder(fullTopic: string, message: BroadcastMessage): (vsn: Vsn) => Frame {
  const cache = new Map<Vsn, Frame>();
  const build = (vsn: Vsn): Frame => {
    if (message.kind === 'json') {
      return { data: Buffer.from(encodeJson(vsn, null, null, fullTopic, 'broadcast', message.payload)), binary: false };
    }
    const { user } = message;
    if (vsn === '2.0.0') {
      const bytes = encodeUserBroadcast(fullTopic, user);
      if (bytes) return { data: bytes, binary: true };
    }
    // V1 (or an over-long field): only JSON payloads can be represented.
    if (user.encoding !== 'json') return null;
    const payload: Record<string, unknown> = { type: 'broadcast', event: user.event, payload: user.json };
    if (user.metadata) payload.meta = user.metadata;
    return { data: Buffer.from(encodeJson(vsn, null, null, fullTopic, 'broadcast', payload)), binary: false };
  };
  return (vsn) => {
    if (!cache.has(vsn)) cache.set(vsn, build(vsn));
    return cache.get(vsn)!;
  };
}

/** The stored message id a broadcast carries in its metadata, if any. */
function messageId(message: BroadcastMessage): string | null {
  const meta =
    message.kind === 'user' ? message.user.metadata : (message.payload.meta as Record<string, unknown> | undefined);
  return meta && typeof meta.id === 'string' ? meta.id : null;
}

/** Every topic of the server: who is joined, their presence, and fan-out. */
export class Hub {
  private readonly topics = new Map<string, Topic>();

  constructor(private readonly log: (line: string) => void) {}

  private topic(subTopic: string, isPrivate: boolean): Topic {
    const key = topicKey(subTopic, isPrivate);
    let topic = this.topics.get(key);
    if (!topic) {
      topic = { subTopic, isPrivate, members: new Set(), presence: new TopicPresence() };
      this.topics.set(key, topic);
    }
    return topic;
  }

  join(subTopic: string, isPrivate: boolean, member: Member): void {
    this.topic(subTopic, isPrivate).members.add(member);
  }

  /** Removes the member and its presence (publishing the leave). */
  leave(subTopic: string, isPrivate: boolean, member: Member): void {
    const key = topicKey(subTopic, isPrivate);
    const topic = this.topics.get(key);
    if (!topic) return;
    const diff = topic.presence.untrack(member);
    topic.members.delete(member);
    if (diff) this.publishDiff(topic, diff);
    if (topic.members.size === 0 && topic.presence.size === 0) this.topics.delete(key);
  }

  /** Sends a broadcast to every member allowed to read it, except `except` (self: false). */
  broadcast(subTopic: string, isPrivate: boolean, message: BroadcastMessage, except: Member | null = null): number {
    const topic = this.topics.get(topicKey(subTopic, isPrivate));
    if (!topic) return 0;
    const frameFor = encoder(`realtime:${subTopic}`, message);
    const id = messageId(message);
    let sent = 0;
    for (const member of topic.members) {
      if (member === except || !member.canRead('broadcast')) continue;
      if (id !== null && member.alreadyReplayed?.(id)) continue;
      const frame = frameFor(member.outlet.vsn);
      if (!frame) continue;
      this.deliver(member, frame);
      sent += 1;
    }
    return sent;
  }

  presenceState(subTopic: string, isPrivate: boolean): ReturnType<TopicPresence<Member>['state']> {
    return this.topics.get(topicKey(subTopic, isPrivate))?.presence.state() ?? {};
  }

  track(subTopic: string, isPrivate: boolean, member: Member, key: string, payload: Record<string, unknown>): void {
    const topic = this.topic(subTopic, isPrivate);
    const diff = topic.presence.track(member, key, payload);
    if (diff) this.publishDiff(topic, diff);
  }

  untrack(subTopic: string, isPrivate: boolean, member: Member): void {
    const topic = this.topics.get(topicKey(subTopic, isPrivate));
    const diff = topic?.presence.untrack(member);
    if (topic && diff) this.publishDiff(topic, diff);
  }

  /** Number of topics with anyone in them (for logs and benches). */
  get topicCount(): number {
    return this.topics.size;
  }

  private publishDiff(topic: Topic, diff: PresenceDiff): void {
    const fullTopic = `realtime:${topic.subTopic}`;
    const cache = new Map<Vsn, Buffer>();
    for (const member of topic.members) {
      if (!member.canRead('presence')) continue;
      const vsn = member.outlet.vsn;
      let data = cache.get(vsn);
      if (!data) {
        data = Buffer.from(encodeJson(vsn, null, null, fullTopic, 'presence_diff', diff));
        cache.set(vsn, data);
      }
      this.deliver(member, { data, binary: false });
    }
  }

  private deliver(member: Member, frame: NonNullable<Frame>): void {
    try {
      member.outlet.send(frame.data, frame.binary);
    } catch (error) {
      this.log(`[realtime] delivery failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
