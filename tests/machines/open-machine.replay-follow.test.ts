import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { canvasPresenceMachine } from '../../machines/open-machine/canvas-presence.machine.ts';
import { simulationMachine } from '../../machines/open-machine/simulation.machine.ts';
import type { ReplayLook } from '../../src/lib/ports/canvas-presence.ts';
import { BOB, fakeCanvasChannel, ME, peer } from './canvas-presence.fakes.ts';
import { fakeOpenMachine, OPEN_INPUT } from './open-machine.fakes.ts';
import { entry, fakeSimulationPort, ok, simulation } from './simulation.fakes.ts';

/**
 * Follow mode over the simulation ("Follow mode also follows the presenter's
 * simulation and replay position"): the open machine with the real presence and
 * simulation machines over fake ports. Each person's step goes out on presence; a
 * follower shows the followed person's step; a step of one's own ends follow mode.
 */

function start() {
  const { logic } = fakeOpenMachine();
  const channel = fakeCanvasChannel();
  const port = fakeSimulationPort();
  const actor = createActor(
    logic.provide({
      actors: {
        presence: canvasPresenceMachine.provide({ actors: channel.actors }),
        simulation: simulationMachine.provide({ actors: port.actors }),
      },
    }),
    { input: { ...OPEN_INPUT, userId: ME } },
  ).start();
  const simulationOf = () => actor.getSnapshot().children.simulation!.getSnapshot();
  const presenceOf = () => actor.getSnapshot().children.presence!.getSnapshot();
  const replaysSent = () => channel.commands.flatMap((c) => (c.type === 'send.replay' ? [c.replay] : []));
  const bobAt = (replay: ReplayLook | null) =>
    channel.emit({ type: 'presence.synced', peers: [peer(ME), { ...peer(BOB), replay }] });
  return { actor, channel, port, simulationOf, presenceOf, replaysSent, bobAt };
}

describe('open machine: following the presenter’s replay step', () => {
  it('shares this person’s step on presence, only when it changes', async () => {
    const { port, simulationOf, replaysSent, channel } = start();
    channel.emit({ type: 'presence.joined' });
    await port.settle('listSimulations', ok([simulation('a')]));
    await port.settle('loadLog', ok([entry(1), entry(2, null), entry(3)]));
    expect(simulationOf().context.position).toBeNull();
    expect(replaysSent()).toEqual([{ simulationId: 'a', position: null }]);
    port.emitLog({ type: 'simlog.received', entries: [entry(4, null)] });
    expect(replaysSent()).toEqual([{ simulationId: 'a', position: null }]);
  });

  it('a follower shows the presenter’s step live, returns to live with them, and stops following on a step of its own', async () => {
    const { actor, port, simulationOf, presenceOf, bobAt, channel } = start();
    channel.emit({ type: 'presence.joined' });
    await port.settle('listSimulations', ok([simulation('a')]));
    await port.settle('loadLog', ok([entry(1), entry(2, null), entry(3), entry(4, null)]));
    bobAt({ simulationId: 'a', position: 3 });
    // Not following yet: Bob's step is his own.
    expect(simulationOf().context.position).toBeNull();

    actor.getSnapshot().children.presence!.send({ type: 'presence.follow', userId: BOB });
    expect(simulationOf().context.position).toBe(3);
    bobAt({ simulationId: 'a', position: 2 });
    expect(simulationOf().context.position).toBe(2);
    bobAt({ simulationId: 'a', position: null });
    expect(simulationOf().context.position).toBeNull();
    bobAt({ simulationId: 'a', position: 1 });
    expect(simulationOf().context.position).toBe(1);

    // Choosing a step oneself ends follow mode (the view stops following too).
    actor.getSnapshot().children.simulation!.send({ type: 'sim.stepForward' });
    expect(presenceOf().context.following).toBeNull();
    expect(simulationOf().context.position).toBe(2);
    bobAt({ simulationId: 'a', position: 0 });
    expect(simulationOf().context.position).toBe(2);
    actor.stop();
  });
});
