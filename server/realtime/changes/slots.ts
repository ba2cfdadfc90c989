import { randomBytes } from 'node:crypto';
import type pg from 'pg';

/** Every slot this backend creates starts with this; nothing else is ever dropped. */
export const SLOT_PREFIX = 'chartroom_realtime_';

/** Slots created by this process, so that two feeds in one process never drop each other's. */
const ownSlots = new Set<string>();

/** A unique slot name per feed: prefix, process id, random suffix. */
export function newSlotName(): string {
  const name = `${SLOT_PREFIX}${process.pid}_${randomBytes(4).toString('hex')}`;
  ownSlots.add(name);
  return name;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A slot of ours is stale when nothing streams from it and the process that made it is
 * gone: its pid is dead, or is ours (a reused pid) while this process never created it.
 */
export function isStaleSlot(name: string): boolean {
  if (!name.startsWith(SLOT_PREFIX) || ownSlots.has(name)) return false;
  const pid = Number(name.slice(SLOT_PREFIX.length).split('_')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return true;
  return pid === process.pid || !processAlive(pid);
}

/** Drops inactive slots left by crashed processes; returns their names. */
export async function dropStaleSlots(pool: pg.Pool): Promise<string[]> {
  const result = await pool.query<{ slot_name: string }>(
    `select slot_name::text from pg_replication_slots
      where slot_name like $1 and not active and not temporary`,
    [`${SLOT_PREFIX.replace(/_/g, '\\_')}%`],
  );
  const dropped: string[] = [];
  for (const { slot_name } of result.rows) {
    if (!isStaleSlot(slot_name)) continue;
    try {
      const result = await pool.query(
        `select pg_drop_replication_slot(slot_name) from pg_replication_slots where slot_name = $1 and not active`,
        [slot_name],
      );
      // No row: another process dropped (or picked up) it since the listing; not ours to report.
      if (result.rowCount) dropped.push(slot_name);
    } catch {
      // Another process picked it up or dropped it first: not ours to insist on.
    }
  }
  return dropped;
}

/** Creates the slot unless it exists; returns true when it had to be created. */
export async function ensureSlot(pool: pg.Pool, name: string): Promise<boolean> {
  const exists = await pool.query(`select 1 from pg_replication_slots where slot_name = $1`, [name]);
  if (exists.rowCount) return false;
  await pool.query(`select pg_create_logical_replication_slot($1, 'pgoutput')`, [name]);
  return true;
}

/**
 * Drops the slot once its walsender has let go of it (that takes a moment after the
 * replication connection closes). Gives up after `timeoutMs`.
 */
export async function dropSlot(pool: pg.Pool, name: string, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const state = await pool.query<{ active: boolean }>(
        `select active from pg_replication_slots where slot_name = $1`,
        [name],
      );
      const row = state.rows[0];
      if (!row) {
        ownSlots.delete(name);
        return true;
      }
      if (!row.active) {
        await pool.query(`select pg_drop_replication_slot($1)`, [name]);
        ownSlots.delete(name);
        return true;
      }
      if (Date.now() > deadline - timeoutMs / 2) {
        // The name is unique to this feed, so whoever still streams from it is our own
        // walsender that missed the goodbye: end it.
        await pool.query(
          `select pg_terminate_backend(active_pid) from pg_replication_slots where slot_name = $1 and active`,
          [name],
        );
      }
    } catch {
      // Raced with the walsender still releasing the slot: retry below.
    }
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
