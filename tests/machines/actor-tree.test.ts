import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { roomMachine } from '../../machines/room/room.machine.ts';

/**
 * machines/CONTEXT.md draws the actor tree; this reads that drawing and the machines'
 * own `invoke`s (following each child that is itself a machine) and fails when they
 * disagree, so the document stays true as machines gain or lose children.
 */

interface Node {
  id: string;
  children: Node[];
}

/** The tree drawn in CONTEXT.md's first code block under "## The actor tree". */
function drawnTree(): Node {
  const text = fs.readFileSync('machines/CONTEXT.md', 'utf8');
  const section = text.slice(text.indexOf('## The actor tree'));
  const block = section.slice(section.indexOf('```\n') + 4, section.indexOf('```', section.indexOf('```\n') + 4));
  const lines = block.split('\n').filter((l) => l.trim() !== '');
  const root: Node = { id: (lines[0] ?? '').trim().split(/\s+/)[0] ?? '', children: [] };
  const stack: { depth: number; node: Node }[] = [{ depth: -1, node: root }];
  for (const line of lines.slice(1)) {
    const marker = /[├└]─ /.exec(line);
    if (!marker) continue;
    const depth = marker.index;
    const node: Node = {
      id:
        line
          .slice(depth + 3)
          .trim()
          .split(/\s+/)[0] ?? '',
      children: [],
    };
    while ((stack[stack.length - 1]?.depth ?? -1) >= depth) stack.pop();
    stack[stack.length - 1]?.node.children.push(node);
    stack.push({ depth, node });
  }
  return root;
}

interface InvokeConfig {
  id?: string;
  src: unknown;
}
interface StateConfigLike {
  invoke?: InvokeConfig | InvokeConfig[];
  states?: Record<string, StateConfigLike>;
}

function invokesOf(config: StateConfigLike, out: InvokeConfig[] = []): InvokeConfig[] {
  const list = config.invoke === undefined ? [] : Array.isArray(config.invoke) ? config.invoke : [config.invoke];
  out.push(...list);
  for (const child of Object.values(config.states ?? {})) invokesOf(child, out);
  return out;
}

const isMachine = (logic: unknown): logic is AnyStateMachine =>
  typeof logic === 'object' && logic !== null && 'config' in logic && 'root' in logic;

/** The tree the code builds: every invoked child that is a machine, by its invoke id. */
function codeTree(id: string, machine: AnyStateMachine): Node {
  const actors = (machine.implementations.actors ?? {}) as Record<string, unknown>;
  const children = invokesOf(machine.config as StateConfigLike).flatMap((inv) => {
    const logic = typeof inv.src === 'string' ? actors[inv.src] : inv.src;
    return isMachine(logic) ? [codeTree(inv.id ?? String(inv.src), logic)] : [];
  });
  return { id, children };
}

describe('machines/CONTEXT.md: the actor tree', () => {
  it('draws exactly the machines the room invokes, at every level', () => {
    expect(drawnTree()).toEqual(codeTree('room', roomMachine));
  });
});
