import fs from 'node:fs';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The seam between views and machines, as lint (eslint.config.js): under src/features no
 * view creates an actor (`useActorRef`, `useMachine`) and no effect sends an actor an
 * event. Each snippet is linted as if it were a file of src/features with the repository's
 * own config, through ESLint's Node API.
 */

const SEAM_RULES = ['no-restricted-syntax', 'no-restricted-imports', 'seam/effect-sends-through'];

// The repository's own config decides which files the seam rules hold for; only those rules
// run, and without the type-aware parse (building the TypeScript program took most of this
// file's time and none of the seam rules reads a type).
const eslint = new ESLint({
  overrideConfigFile: 'eslint.config.js',
  overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
  ruleFilter: ({ ruleId }) => SEAM_RULES.includes(ruleId),
});
// A path under src/features; the text is the snippet's.
const FILE = 'src/features/tests/RoomPlayback.tsx';

async function seamErrors(code: string, filePath = FILE): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  const messages = result?.messages ?? [];
  const fatal = messages.filter((m) => m.fatal);
  if (fatal.length > 0) throw new Error(fatal.map((m) => m.message).join('\n'));
  return messages.filter((m) => SEAM_RULES.includes(m.ruleId ?? '')).map((m) => m.message);
}

const CREATES = `import { useActorRef } from '@xstate/react';
import { createMachine } from 'xstate';

const machine = createMachine({});

export function Panel() {
  const actor = useActorRef(machine);
  return <p>{String(actor.id)}</p>;
}
`;

const EFFECT_SENDS = `import { useEffect } from 'react';
import type { AnyActorRef } from 'xstate';

export function Panel({ actor, value }: { actor: AnyActorRef; value: number }) {
  useEffect(() => actor.send({ type: 'panel.valueChanged', value }), [actor, value]);
  return <p>{value}</p>;
}
`;

const EFFECT_SENDS_BARE = `import { useEffect } from 'react';

export function Panel({ send, value }: { send: (e: { type: string }) => void; value: number }) {
  useEffect(() => {
    send({ type: 'panel.valueChanged' });
  }, [send, value]);
  return <p>{value}</p>;
}
`;

// Senders named for what they reach (the hooks in the *-context.ts files), on mount, on
// unmount and in a layout effect: each is an effect-send all the same.
const EFFECT_SENDS_NAMED = `import { useEffect, useLayoutEffect } from 'react';

export function Panel({
  roomSend,
  canvasSend,
  paneShapeSend,
  machineId,
}: {
  roomSend: (e: { type: string; machineId?: string }) => void;
  canvasSend: (e: { type: string }) => void;
  paneShapeSend: (aspect: number) => void;
  machineId: string;
}) {
  useEffect(() => {
    roomSend({ type: 'room.openMachine', machineId });
    return () => roomSend({ type: 'room.closeMachine' });
  }, [roomSend, machineId]);
  useLayoutEffect(() => {
    paneShapeSend(1.5);
    canvasSend({ type: 'canvas.paneSized' });
  }, [paneShapeSend, canvasSend]);
  return <p>{machineId}</p>;
}
`;

// A sender called from a ResizeObserver set up by a ref callback (not an effect), and a
// function whose name merely contains "send" inside an effect: both allowed.
const MEASURED_BY_REF = `import { useCallback, useEffect } from 'react';

export function Panel({ canvasSend, sender }: { canvasSend: (e: { type: string }) => void; sender: () => void }) {
  const ref = useCallback(
    (el: HTMLDivElement | null) => {
      if (!el) return;
      const observer = new ResizeObserver(() => canvasSend({ type: 'canvas.paneSized' }));
      observer.observe(el);
      return () => observer.disconnect();
    },
    [canvasSend],
  );
  useEffect(() => sender(), [sender]);
  return <div ref={ref} />;
}
`;

// A function of the file that sends, called by an effect and by its cleanup (the stage's
// fit once was one): the effect sends through it all the same.
const EFFECT_SENDS_THROUGH = `import { useCallback, useEffect } from 'react';

export function Stage({ canvasSend, size }: { canvasSend: (e: { type: string }) => void; size: number }) {
  const fit = useCallback(() => canvasSend({ type: 'canvas.fit' }), [canvasSend]);
  function forget() {
    canvasSend({ type: 'canvas.forget' });
  }
  useEffect(() => {
    if (size > 0) fit();
    return () => forget();
  }, [size, fit]);
  return <p>{size}</p>;
}
`;

// A listener the effect sets up calls a function that sends (the editor's typing): the
// listener delivers its own facts. And a function of the file that does not send.
const EFFECT_LISTENS = `import { useCallback, useEffect } from 'react';

export function Editor({ codeSend, text }: { codeSend: (e: { type: string; text: string }) => void; text: string }) {
  const typed = useCallback((t: string) => codeSend({ type: 'code.typed', text: t }), [codeSend]);
  const measure = () => text.length;
  useEffect(() => {
    measure();
    const listener = (e: Event) => typed(String(e.type));
    window.addEventListener('input', listener);
    return () => window.removeEventListener('input', listener);
  }, [text, typed]);
  return <p>{text}</p>;
}
`;

const CLEAN = `import { useEffect, useRef } from 'react';
import type { AnyActorRef } from 'xstate';

export function Panel({ actor, value }: { actor: AnyActorRef; value: number }) {
  const seen = useRef(0);
  useEffect(() => {
    seen.current = value;
  }, [value]);
  return (
    <button type="button" onClick={() => actor.send({ type: 'panel.pressed' })}>
      {value}
    </button>
  );
}
`;

describe('the seam rule (eslint.config.js, src/features)', () => {
  it('refuses a view that creates an actor with useActorRef', async () => {
    const errors = await seamErrors(CREATES);
    expect(errors.some((m) => m.startsWith('Views create no actors'))).toBe(true);
    // Both the import and the call are named.
    expect(errors.length).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('refuses an effect that sends an actor an event, as actor.send( or as send(', async () => {
    expect(await seamErrors(EFFECT_SENDS)).toEqual([
      'No effect sends an actor an event: the parent machine routes what changed (machines/CONTEXT.md).',
    ]);
    expect(await seamErrors(EFFECT_SENDS_BARE)).toEqual([
      'No effect sends an actor an event: the parent machine routes what changed (machines/CONTEXT.md).',
    ]);
  }, 60_000);

  it('refuses an effect that calls any sender named `…Send`, on mount, on unmount or in a layout effect', async () => {
    expect(await seamErrors(EFFECT_SENDS_NAMED)).toEqual(
      Array(4).fill('No effect sends an actor an event: the parent machine routes what changed (machines/CONTEXT.md).'),
    );
  }, 60_000);

  it('refuses an effect, or its cleanup, that calls a function of the file which sends', async () => {
    const errors = await seamErrors(EFFECT_SENDS_THROUGH);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/^No effect sends an actor an event.*`fit` sends/);
    expect(errors[1]).toMatch(/`forget` sends/);
  }, 60_000);

  it('leaves alone a listener an effect sets up, and functions of the file that do not send', async () => {
    expect(await seamErrors(EFFECT_LISTENS)).toEqual([]);
  }, 60_000);

  it('lets a view send intents from its handlers and keep effects to itself', async () => {
    expect(await seamErrors(CLEAN)).toEqual([]);
    expect(await seamErrors(MEASURED_BY_REF)).toEqual([]);
  }, 60_000);

  it('passes the canvas stage and the machine page as they are written', async () => {
    for (const file of ['src/features/canvas/useStage.ts', 'src/features/canvas/MachineView.tsx']) {
      const code = fs.readFileSync(file, 'utf8');
      // The files still send: from handlers and the stage's ResizeObserver, never from an effect.
      expect(code).toMatch(/Send\(/);
      expect(await seamErrors(code, file)).toEqual([]);
    }
  }, 60_000);

  it('holds only under src/features: the composition root creates the root actors', async () => {
    expect(await seamErrors(CREATES, 'src/app/Root.tsx')).toEqual([]);
  }, 60_000);
});
