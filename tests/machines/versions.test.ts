import { describe, expect, it } from 'vitest';
import { door, idleId, ok, refused, renamed, start, version } from './versions.fakes.ts';

/** The versions machine with the fake port (tests/machines/versions.fakes.ts). */

describe('versions machine', () => {
  it('lists the versions in log order and adds one that appears live, once', async () => {
    const { actor, held, facts } = start();
    expect(actor.getSnapshot().hasTag('loading')).toBe(true);
    await held.settle('listVersions', ok([version('b', 'v2', 4), version('a', 'v1', 2)]));
    expect(actor.getSnapshot().context.versions.map((v) => v.name)).toEqual(['v1', 'v2']);
    facts.next({ type: 'versions.added', version: version('c', 'v3', 6) });
    facts.next({ type: 'versions.added', version: version('c', 'v3', 6) });
    expect(actor.getSnapshot().context.versions.map((v) => v.name)).toEqual(['v1', 'v2', 'v3']);
    // Back after a drop: read again.
    facts.next({ type: 'versions.subscribed' });
    expect(held.isOpen('listVersions')).toBe(true);
  });

  it('names the head the document has applied, trimmed; a blank name or a refusal keeps asking, with why', async () => {
    const { actor, held } = start();
    await held.settle('listVersions', ok([]));
    actor.send({ type: 'versions.headMoved', version: 7, definition: door });
    actor.send({ type: 'versions.startNaming' });
    expect(actor.getSnapshot().hasTag('naming')).toBe(true);
    actor.send({ type: 'versions.save', name: '   ' });
    expect(actor.getSnapshot().context.error).toBe('A version needs a name.');
    expect(held.isOpen('saveVersion')).toBe(false);
    actor.send({ type: 'versions.save', name: ' v1 ' });
    expect(actor.getSnapshot().hasTag('busy')).toBe(true);
    expect(held.calls.at(-1)).toEqual({ name: 'saveVersion', input: { machineId: 'm-1', name: 'v1', seq: 7 } });
    await held.settle('saveVersion', refused('23505', 'This machine already has a version named "v1".'));
    expect(actor.getSnapshot().hasTag('naming')).toBe(true);
    expect(actor.getSnapshot().context.error).toBe('This machine already has a version named "v1".');
    actor.send({ type: 'versions.save', name: 'v1b' });
    expect(actor.getSnapshot().context.error).toBeNull();
    await held.settle('saveVersion', ok(version('x', 'v1b', 7)));
    expect(actor.getSnapshot().hasTag('naming')).toBe(false);
    expect(actor.getSnapshot().context.versions.map((v) => v.name)).toEqual(['v1b']);
  });

  it('opens a version read-only and lays it out', async () => {
    const { actor, held, laidOut } = start();
    await held.settle('listVersions', ok([version('a', 'v1', 1)]));
    actor.send({ type: 'versions.open', id: 'a' });
    expect(held.calls.at(-1)).toEqual({ name: 'readDefinitions', input: { machineId: 'm-1', seqs: [1] } });
    await held.settle('readDefinitions', ok([door]));
    const view = actor.getSnapshot().context.view;
    expect(view).toMatchObject({ kind: 'open', diff: null, definition: door });
    expect(laidOut).toEqual([
      { type: 'layout.paneSized', aspect: 1 },
      { type: 'layout.request', definition: door },
    ]);
    actor.send({ type: 'versions.close' });
    expect(actor.getSnapshot().context.view).toBeNull();
  });

  it('compares a version with now and with another version; a change picked is selected', async () => {
    const { actor, held } = start();
    await held.settle('listVersions', ok([version('a', 'v1', 1), version('b', 'v2', 2)]));
    actor.send({ type: 'versions.headMoved', version: 2, definition: renamed });
    actor.send({ type: 'versions.compare', id: 'a' });
    await held.settle('readDefinitions', ok([door]));
    const now = actor.getSnapshot().context.view;
    expect(now?.against).toBeNull();
    expect(now?.diff?.changes.map((c) => c.text)).toEqual(['`waiting` renamed from `idle`']);
    expect(now?.diff?.marks.get(idleId)).toBe('changed');
    actor.send({ type: 'versions.select', id: idleId });
    expect(actor.getSnapshot().context.selected).toBe(idleId);

    actor.send({ type: 'versions.compare', id: 'b', against: 'a' });
    expect(held.calls.at(-1)).toEqual({ name: 'readDefinitions', input: { machineId: 'm-1', seqs: [2, 1] } });
    await held.settle('readDefinitions', ok([renamed, door]));
    const between = actor.getSnapshot().context.view;
    expect(between?.against?.name).toBe('v1');
    expect(between?.diff?.changes.map((c) => c.text)).toEqual(['`idle` renamed from `waiting`']);
    expect(actor.getSnapshot().context.selected).toBeNull();
  });

  it('restores a version through the editor as a replace, and says why when it cannot read it', async () => {
    const { actor, held, edited } = start();
    await held.settle('listVersions', ok([version('a', 'v1', 1)]));
    actor.send({ type: 'versions.restore', id: 'a' });
    await held.settle('readDefinitions', ok([door]));
    expect(edited).toEqual([{ type: 'machine.replace', definition: door }]);
    expect(actor.getSnapshot().matches({ view: 'closed' })).toBe(true);

    actor.send({ type: 'versions.restore', id: 'a' });
    await held.settle('readDefinitions', refused('network', "Couldn't read the version: can't reach the server."));
    expect(edited).toHaveLength(1);
    expect(actor.getSnapshot().context.error).toBe("Couldn't read the version: can't reach the server.");
    actor.send({ type: 'versions.dismissError' });
    expect(actor.getSnapshot().context.error).toBeNull();
  });

  it("lays out what it shows for the main canvas's shape, and again when the canvas changes shape", async () => {
    const { actor, held, laidOut } = start();
    await held.settle('listVersions', ok([version('a', 'v1', 1)]));
    actor.send({ type: 'versions.paneSized', width: 800, height: 500 });
    actor.send({ type: 'versions.paneSized', width: Number.NaN, height: 500 });
    actor.send({ type: 'versions.open', id: 'a' });
    await held.settle('readDefinitions', ok([door]));
    expect(actor.getSnapshot().context.view?.label).toBe('v1');
    // A small chart collapses nothing, so another pane lays nothing out again.
    actor.send({ type: 'versions.paneSized', width: 400, height: 800 });
    expect(laidOut).toEqual([
      { type: 'layout.paneSized', aspect: 1.6 },
      { type: 'layout.request', definition: door },
    ]);
    expect(actor.getSnapshot().context.pane).toEqual({ width: 400, height: 800 });
  });

  it('shows a diff of any two definitions another part asks for, with no version to restore', async () => {
    const { actor, held, laidOut, edited } = start();
    await held.settle('listVersions', ok([version('a', 'v1', 1)]));
    actor.send({ type: 'view.diff', before: door, after: renamed, label: 'Proposal: rename idle' });
    const view = actor.getSnapshot().context.view;
    expect(view).toMatchObject({ kind: 'compare', version: null, against: null, label: 'Proposal: rename idle' });
    expect(view?.diff?.changes.map((c) => c.text)).toEqual(['`waiting` renamed from `idle`']);
    expect(actor.getSnapshot().hasTag('showing')).toBe(true);
    expect(laidOut.at(-1)).toEqual({ type: 'layout.request', definition: view?.definition });
    // A second diff replaces the first and is laid out afresh; Back to now ends it; nothing was edited.
    actor.send({ type: 'view.diff', before: renamed, after: door, label: '  ' });
    expect(actor.getSnapshot().context.view?.label).toBe('Changes');
    expect(actor.getSnapshot().context.view?.diff?.changes.map((c) => c.text)).toEqual([
      '`idle` renamed from `waiting`',
    ]);
    expect(laidOut.filter((e) => e.type === 'layout.request')).toHaveLength(2);
    actor.send({ type: 'versions.close' });
    expect(actor.getSnapshot().context.view).toBeNull();
    // Nothing was edited; leaving each view told the canvas to show now again.
    expect(edited.filter((e) => e.type === 'machine.replace')).toEqual([]);
    expect(edited.at(-1)).toEqual({ type: 'machine.reviewLaidOut', layout: null });
  });

  it('ignores a version it does not know, and shows a list that failed until retried', async () => {
    const { actor, held } = start();
    await held.fail('listVersions', new Error('adapter bug'));
    expect(actor.getSnapshot().hasTag('failed')).toBe(true);
    actor.send({ type: 'versions.open', id: 'nope' });
    expect(held.isOpen('readDefinitions')).toBe(false);
    actor.send({ type: 'versions.retry' });
    await held.settle('listVersions', ok([]));
    expect(actor.getSnapshot().hasTag('failed')).toBe(false);
  });
});
