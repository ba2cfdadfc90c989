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

/** The picture's formats: SVG as drawn, or PNG rasterised from it by sharp (at twice its size, for screens). */
export type PictureFormat = 'svg' | 'png';

export async function renderFile(
  definition: MachineDefinition,
  out: string,
  format: PictureFormat = 'svg',
): Promise<void> {
  const svg = await machineSvg(definition);
  if (format === 'svg') return writeAtomic(out, svg);
  const { default: sharp } = await import('sharp');
  await writeAtomic(out, await sharp(Buffer.from(svg), { density: 144 }).png().toBuffer());
}
