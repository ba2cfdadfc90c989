import { describe, expect, it } from 'vitest';
import { createActor, createMachine, type AnyEventObject } from 'xstate';
import { codeViewMachine, configText } from '../../machines/open-machine/code-view.machine.ts';
import { counterIds, importXState } from '../../src/lib/model/index.ts';

const v1 = importXState({ id: 'm', initial: 'a', states: { a: {} } }, { ids: counterIds('m') });
const v2 = importXState({ id: 'm', initial: 'a', states: { a: {}, b: {} } }, { ids: counterIds('m') });

function start() {
  const told: AnyEventObject[] = [];
  const editor = createActor(createMachine({ on: { '*': { actions: ({ event }) => told.push(event) } } })).start();
  const actor = createActor(codeViewMachine, { input: { definition: v1, editor } }).start();
  const shown: string[] = [];
  actor.on('code.show', ({ text }) => shown.push(text));
  return { actor, told, shown, snap: () => actor.getSnapshot() };
}

describe('code view machine', () => {
  it('follows the definition while the text is untouched', () => {
    const { actor, shown, snap } = start();
    expect(snap().hasTag('following')).toBe(true);
    actor.send({ type: 'code.definitionChanged', definition: v2 });
    expect(shown).toEqual([configText(v2)]);
    // The same text again shows nothing new.
    actor.send({ type: 'code.definitionChanged', definition: v2 });
    expect(shown).toHaveLength(1);
  });

  it('while unseen, remembers the newest definition and shows its text once seen again', () => {
    const { actor, shown, snap } = start();
    actor.send({ type: 'code.seen', seen: false });
    actor.send({ type: 'code.definitionChanged', definition: v2 });
    expect(shown).toEqual([]);
    expect(snap().context.shown).toBe(configText(v1));
    actor.send({ type: 'code.seen', seen: true });
    expect(shown).toEqual([configText(v2)]);
    expect(snap().context.shown).toBe(configText(v2));
  });

  it('keeps edited text through remote changes, and reverts to the newest definition', () => {
    const { actor, shown, snap } = start();
    actor.send({ type: 'code.typed', text: '{ "id": "mine"' });
    expect(snap().hasTag('dirty')).toBe(true);
    actor.send({ type: 'code.definitionChanged', definition: v2 });
    expect(shown).toEqual([]);
    actor.send({ type: 'code.revert' });
    expect(shown).toEqual([configText(v2)]);
    expect(snap().hasTag('following')).toBe(true);
    // Typing back to what is shown is not an edit.
    actor.send({ type: 'code.typed', text: 'x' });
    actor.send({ type: 'code.typed', text: configText(v2) });
    expect(snap().hasTag('following')).toBe(true);
  });

  it('discards an unapplied edit when the Code panel closes, and shows the newest definition once open again', () => {
    const { actor, told, shown, snap } = start();
    actor.send({ type: 'code.typed', text: '{ "id": "mine"' });
    expect(snap().context.typed).toBe('{ "id": "mine"');
    actor.send({ type: 'code.definitionChanged', definition: v2 });
    actor.send({ type: 'code.seen', seen: false });
    expect(snap().hasTag('following')).toBe(true);
    expect(snap().context.typed).toBeNull();
    // The editor is told the newest text (it waits while the panel is closed); nothing was applied.
    expect(shown).toEqual([configText(v2)]);
    expect(told).toEqual([]);
    actor.send({ type: 'code.seen', seen: true });
    expect(shown).toEqual([configText(v2)]);
    expect(snap().context.shown).toBe(configText(v2));
  });

  it('discards an unapplied edit when edit rights go, and keeps it while they stay', () => {
    const { actor, shown, snap } = start();
    actor.send({ type: 'code.typed', text: '{ "id": "mine"' });
    actor.send({ type: 'code.editableChanged', canEdit: true });
    expect(snap().hasTag('dirty')).toBe(true);
    expect(snap().context.typed).toBe('{ "id": "mine"');
    actor.send({ type: 'code.editableChanged', canEdit: false });
    expect(snap().hasTag('following')).toBe(true);
    expect(shown).toEqual([configText(v1)]);
  });

  it('refuses text with errors (invalid) and hands a valid config to the editor', () => {
    const { actor, told, snap } = start();
    actor.send({ type: 'code.typed', text: '{ nope' });
    actor.send({ type: 'code.apply', text: '{ nope' });
    expect(snap().hasTag('invalid')).toBe(true);
    expect(snap().context.errors.length).toBeGreaterThan(0);
    expect(told).toEqual([]);
    const text = configText(v2);
    actor.send({ type: 'code.typed', text: `${text} ` });
    actor.send({ type: 'code.apply', text: `${text} ` });
    expect(snap().hasTag('following')).toBe(true);
    expect(snap().context.errors).toEqual([]);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ type: 'machine.replace' });
  });
});
