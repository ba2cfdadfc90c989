import ELK from 'elkjs/lib/elk.bundled.js';
import { estimateText, layoutDefinition } from '../lib/layout/index.ts';
import type { MachineDefinition } from '../lib/model/types.ts';
import { renderSvg } from '../lib/render/svg.ts';
import { writeAtomic } from './files.ts';

/** A machine as an SVG file: the app's own layout (elkjs runs in Node) with the estimated text widths. */
export async function machineSvg(definition: MachineDefinition): Promise<string> {
  const layout = await layoutDefinition(new ELK(), definition, estimateText);
  return renderSvg(definition, layout);
}

export async function renderFile(definition: MachineDefinition, out: string): Promise<void> {
  await writeAtomic(out, await machineSvg(definition));
}
