import type pg from 'pg';
import { checkRead, checkWrite, emptyPolicies, type Extension, type Policies } from './authorization.ts';
import type { Identity } from './tokens.ts';

/**
 * What a channel's token may do on its topic, as RLS on realtime.messages decides it:
 * the read policy (checked at join, again for a new token and when the database says the
 * user's access changed) and the write policy (checked on first use, then cached until
 * the read policy is checked again, as hosted caches it). Public channels are open.
 */
export class ChannelAccess {
  private policies: Policies = emptyPolicies();

  constructor(
    private readonly pool: pg.Pool,
    private readonly log: (line: string) => void,
    private readonly subTopic: string,
    private readonly isPrivate: boolean,
  ) {}

  canRead(extension: Extension): boolean {
    return !this.isPrivate || this.policies[extension].read === true;
  }

  /** Whether the read policy of `extension` has been checked for the current token. */
  readChecked(extension: Extension): boolean {
    return this.policies[extension].read !== null;
  }

  /** Runs the read policy into `into`; true when broadcast or presence may be read. */
  async authorizeRead(identity: Identity, wanted: Extension[], into: Policies = this.policies): Promise<boolean> {
    try {
      const read = await checkRead(this.pool, identity, this.subTopic, wanted);
      for (const e of wanted) into[e].read = read[e];
    } catch (error) {
      this.log(
        `[realtime] RlsPolicyError on ${this.subTopic}: ${error instanceof Error ? error.message : String(error)}`,
      );
      for (const e of wanted) into[e].read = false;
    }
    return into.broadcast.read === true || into.presence.read === true;
  }

  /** Runs (once per token) the write policy; cached like hosted. */
  async authorizeWrite(identity: Identity, extension: Extension): Promise<boolean> {
    if (this.policies[extension].write === null) {
      try {
        const write = await checkWrite(this.pool, identity, this.subTopic, ['broadcast', 'presence']);
        this.policies.broadcast.write = write.broadcast;
        this.policies.presence.write = write.presence;
      } catch (error) {
        this.log(
          `[realtime] RlsPolicyError on ${this.subTopic}: ${error instanceof Error ? error.message : String(error)}`,
        );
        return false;
      }
    }
    return this.policies[extension].write === true;
  }

  /**
   * Checks the read policy again for `identity`, forgetting cached write checks. The old
   * policies keep serving deliveries until the new ones are known. `revoked`: something
   * readable before no longer is; `refused`: nothing is readable.
   */
  async recheck(identity: Identity, wanted: Extension[]): Promise<'allowed' | 'revoked' | 'refused'> {
    const before = this.policies;
    const after = emptyPolicies();
    const allowed = await this.authorizeRead(identity, wanted, after);
    this.policies = after;
    const revoked = (e: Extension) => before[e].read === true && after[e].read === false;
    if (revoked('broadcast') || revoked('presence')) return 'revoked';
    return allowed ? 'allowed' : 'refused';
  }
}
