import { fromCallback, fromEventObservable, fromPromise } from 'xstate';
import {
  inspectionFollowMachine,
  type FollowCommand,
  type FollowInput,
} from '../../machines/inspection/inspection-follow.machine.ts';
import { inspectionDiagramMachine } from '../../machines/inspection/inspection-diagram.machine.ts';
import { inspectionSessionMachine } from '../../machines/inspection/inspection-session.machine.ts';
import { inspectionSourcesMachine } from '../../machines/inspection/inspection-sources.machine.ts';
import { inspectionMachine } from '../../machines/inspection/inspection.machine.ts';
import type { InspectionFollowPort } from '../lib/ports/inspection-follow.ts';
import { inspectedDefinition } from '../lib/inspection/definition.ts';
import type { LayoutPort } from '../lib/ports/layout.ts';
import type { DocumentPort } from '../lib/ports/document.ts';
import type { InspectionPort } from '../lib/ports/inspection.ts';

/**
 * The inspection machine's actors: the inspection port, the machines port (Save as
 * machine creates a machine with the inspected definition), a layout port made per
 * diagram (`layoutEngine` opens one and the actor closes it when done) and follow mode's
 * channel.
 */
export function inspectionLogic(
  port: InspectionPort,
  machines: Pick<DocumentPort, 'createMachine'>,
  layoutEngine: () => { port: LayoutPort; close: () => void },
  followPort: InspectionFollowPort,
) {
  const diagram = inspectionDiagramMachine.provide({
    actors: {
      layoutDiagram: fromPromise(async ({ input }: { input: { config: Record<string, unknown> } }) => {
        const engine = layoutEngine();
        try {
          const definition = inspectedDefinition(input.config);
          const result = await engine.port({ definition, hints: null });
          return result.ok ? { definition, layout: result.layout } : null;
        } finally {
          engine.close();
        }
      }),
      saveMachine: fromPromise(
        async ({ input }: { input: { projectId: string; name: string; config: Record<string, unknown> } }) => {
          let definition;
          try {
            definition = inspectedDefinition(input.config, input.name);
          } catch (error) {
            return { ok: false as const, message: error instanceof Error ? error.message : String(error) };
          }
          const created = await machines.createMachine({ projectId: input.projectId, name: input.name, definition });
          return created.ok
            ? { ok: true as const, value: created.value.id }
            : { ok: false as const, message: created.error.message };
        },
      ),
    },
  });
  const session = inspectionSessionMachine.provide({
    actors: {
      loadEvents: fromPromise(({ input }: { input: { sessionId: string; afterSeq: number } }) =>
        port.sessionEvents(input.sessionId, input.afterSeq),
      ),
    },
  });
  const sources = inspectionSourcesMachine.provide({
    actors: {
      createSource: fromPromise(({ input }: { input: { projectId: string; name: string } }) =>
        port.createSource(input.projectId, input.name),
      ),
      revokeSource: fromPromise(({ input }: { input: { sourceId: string } }) => port.revokeSource(input.sourceId)),
      setRetention: fromPromise(({ input }: { input: { sourceId: string; maxEvents: number; maxDays: number } }) =>
        port.setRetention(input.sourceId, input.maxEvents, input.maxDays),
      ),
    },
  });
  return inspectionMachine.provide({
    actors: {
      follow: inspectionFollowLogic(followPort),
      sources,
      session,
      diagram,
      load: fromPromise(({ input }: { input: { projectId: string } }) => port.load(input.projectId)),
      feed: fromEventObservable(({ input }: { input: { projectId: string } }) => port.feed$(input.projectId)),
    },
  });
}
export type InspectionLogic = ReturnType<typeof inspectionLogic>;

/** Follow mode over its channel port: facts in, this person's look (while presenting) out. */
export function inspectionFollowLogic(port: InspectionFollowPort) {
  return inspectionFollowMachine.provide({
    actors: {
      channel: fromCallback<FollowCommand, FollowInput>(({ input, sendBack, receive }) => {
        const channel = port.open(input.projectId, input.userId);
        const subscription = channel.facts$.subscribe({
          next: (fact) => sendBack(fact),
          error: (error: unknown) =>
            sendBack({
              type: 'follow.lost',
              message: error instanceof Error ? error.message : 'The live connection failed',
            }),
        });
        receive((command) => {
          if (command.type === 'send.ask') channel.ask();
          else channel.present(command.look);
        });
        return () => {
          subscription.unsubscribe();
          channel.close();
        };
      }),
    },
  });
}
