import { randomUUID } from 'node:crypto';
import { createCanvasPresenceAdapter } from '../adapters/supabase/canvas-presence.ts';
import { createMachinesAdapter } from '../adapters/supabase/machines.ts';
import { createProjectsAdapter } from '../adapters/supabase/projects.ts';
import { createSimulationsAdapter } from '../adapters/supabase/simulations.ts';
import { diffToOps } from '../lib/canvas-ops/diff.ts';
import { touchedIds } from '../lib/canvas-ops/touched.ts';
import { applyOps } from '../lib/model/apply.ts';
import { chartroomModel } from '../lib/collab/chartroom.ts';
import type { MachineDefinition } from '../lib/model/types.ts';
import type { Observable } from 'rxjs';
import type { CanvasPresencePort } from '../lib/ports/canvas-presence.ts';
import type { MachineSummary, OpStreamEvent } from '../lib/ports/document.ts';
import type { ProjectSummary } from '../lib/ports/projects.ts';
import type { SimulationPort } from '../lib/ports/simulation.ts';
import type { Result } from '../lib/ports/room.ts';
import { CliError } from './files.ts';
import type { Session } from './session.ts';

/**
 * The room as the command sees it: the app's own adapters over the signed-in client, and
 * the app's own op model, so a push reaches everyone in the room as any edit does.
 */

function must<T>(result: Result<T>): T {
  if (!result.ok) throw new CliError(result.error.message);
  return result.value;
}

export class Room {
  private readonly machines;
  private readonly projects;
  /** The machines' shared simulations (the app's simulations adapter). */
  readonly simulations: SimulationPort;
  /** Presence on a machine's canvas (the app's adapter), as the signed-in person. */
  readonly canvasPresence: CanvasPresencePort;

  constructor(private readonly session: Session) {
    const client = session.client as Parameters<typeof createMachinesAdapter>[0];
    this.machines = createMachinesAdapter(client);
    this.projects = createProjectsAdapter(client);
    this.simulations = createSimulationsAdapter(client);
    this.canvasPresence = createCanvasPresenceAdapter(client);
  }

  get userId(): string {
    return this.session.userId;
  }

  /** The machine's committed ops as they arrive (the app's op stream). */
  opEvents$(machineId: string): Observable<OpStreamEvent> {
    return this.machines.opEvents$(machineId);
  }

  async listProjects(): Promise<ProjectSummary[]> {
    return must(await this.projects.list(this.session.userId));
  }

  async listMachines(projectId: string): Promise<MachineSummary[]> {
    return must(await this.machines.listMachines(projectId));
  }

  /** A machine's current definition: its checkpoint with the log after it folded as every client folds it. */
  async current(
    machineId: string,
  ): Promise<{ definition: MachineDefinition; projectId: string; name: string; version: number }> {
    const loaded = must(await this.machines.loadMachine(machineId));
    let definition = loaded.definition;
    for (const { op } of loaded.tail) definition = chartroomModel.resolve!(definition, op).doc;
    const version =
      loaded.tail.length === 0 ? loaded.version : (loaded.tail[loaded.tail.length - 1]?.seq ?? loaded.version);
    return { definition, projectId: loaded.projectId, name: loaded.name, version };
  }

  async create(projectId: string, name: string, definition: MachineDefinition): Promise<MachineSummary> {
    return must(await this.machines.createMachine({ projectId, name, definition }));
  }

  /**
   * The ops that turn the room's machine into `next` (ids kept where states match), committed
   * as one batch. `definition` is the room's machine as this batch leaves it: a caller that
   * reads the room again afterwards may already see someone else's later edit.
   */
  async push(
    machineId: string,
    next: MachineDefinition,
  ): Promise<{ ops: number; version: number; touched: string[]; definition: MachineDefinition }> {
    const { definition, version } = await this.current(machineId);
    const ops = diffToOps(definition, next);
    if (ops.length === 0) return { ops: 0, version, touched: [], definition };
    const result = await this.machines.commitOps({
      machineId,
      clientId: `cli-${randomUUID()}`,
      batchId: randomUUID(),
      ops,
    });
    if (!result.ok) throw new CliError(result.error.message);
    const after = applyOps(definition, ops);
    return {
      ops: ops.length,
      version: result.receipt.version,
      touched: touchedIds(definition, after),
      definition: after,
    };
  }
}
