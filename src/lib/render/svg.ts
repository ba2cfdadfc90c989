import { triggerText, wrapLabel } from '../layout/labels.ts';
import { detailLines, tagLine } from '../layout/sizes.ts';
import { extentOf, type Layout, type LayoutEdge, type LayoutNode, type Point } from '../layout/types.ts';
import type { MachineDefinition } from '../model/types.ts';

/**
 * A laid-out diagram as a standalone SVG document: the canvas's drawing rules
 * (features/canvas/shapes.tsx) with its light theme written inline, so the file needs no
 * stylesheet and no browser. Pure: definition and layout in, text out.
 */

/** The canvas's light theme (canvas.css), resolved to plain colours. */
const COLORS = {
  surface: '#ffffff',
  compound: '#fbfbfc',
  text: '#1f2328',
  muted: '#656d76',
  accent: '#6639ba',
  stroke: '#a5a7a9',
  border: '#d0d7de',
  line: '#7d8185',
  pill: '#cfd0d1',
  label: '#494d52',
} as const;

const FONT = 'Inter, ui-sans-serif, system-ui, sans-serif';
/** Room around the machine's box. */
const MARGIN = 16;

/** Text and attribute values with the five XML specials escaped. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&apos;',
  );
}

/** A coordinate as SVG text: one decimal, never NaN (a missing point draws at 0). */
const n = (v: number): string => (Number.isFinite(v) ? String(Math.round(v * 10) / 10) : '0');

const pathOf = (points: Point[]): string => points.map((p, i) => `${i === 0 ? 'M' : 'L'}${n(p.x)},${n(p.y)}`).join(' ');

function text(x: number, y: number, body: string, style: string, anchor: 'start' | 'middle' = 'start'): string {
  return `<text x="${n(x)}" y="${n(y)}" text-anchor="${anchor}" style="${style}">${escapeXml(body)}</text>`;
}

const NAME_STYLE = `font: 600 13px ${FONT}; fill: ${COLORS.text}`;
const DETAIL_STYLE = `font: 12px ${FONT}; fill: ${COLORS.muted}`;
const TAG_STYLE = `font: italic 12px ${FONT}; fill: ${COLORS.accent}`;

function stateShape(def: MachineDefinition, node: LayoutNode): string {
  const s = def.states[node.id];
  if (!s) return '';
  const name = node.parent === null ? def.name || def.machineId || 'machine' : s.key;
  const at = `transform="translate(${n(node.x)} ${n(node.y)})"`;
  if (node.type === 'history') {
    const r = node.width / 2;
    return (
      `<g ${at}><circle cx="${n(r)}" cy="${n(r)}" r="${n(r)}" style="fill: ${COLORS.surface}; stroke: ${COLORS.stroke}; stroke-width: 1.2"/>` +
      `${text(r, r + 4, node.history === 'deep' ? 'H*' : 'H', NAME_STYLE, 'middle')}</g>`
    );
  }
  const compound = s.children.length > 0;
  const fill = node.parent === null || node.region ? 'none' : compound ? COLORS.compound : COLORS.surface;
  const stroke = node.parent === null ? COLORS.border : COLORS.stroke;
  const dash = node.region ? '; stroke-dasharray: 6 4' : '';
  const parts = [
    `<rect width="${n(node.width)}" height="${n(node.height)}" rx="${node.region ? 4 : 10}" style="fill: ${fill}; stroke: ${stroke}; stroke-width: 1.2${dash}"/>`,
  ];
  if (node.type === 'final')
    parts.push(
      `<rect x="4" y="4" width="${n(node.width - 8)}" height="${n(node.height - 8)}" rx="7" style="fill: none; stroke: ${COLORS.stroke}; stroke-width: 1.2"/>`,
    );
  const titleY = compound ? 22 : 23;
  parts.push(text(compound ? 14 : node.width / 2, titleY, name, NAME_STYLE, compound ? 'start' : 'middle'));
  // The tag line first, under the name (sizes.ts leaves room for it), then entry/exit/invoke.
  const tags = tagLine(s);
  if (tags !== null)
    parts.push(text(compound ? 14 : node.width / 2, titleY + 18, tags, TAG_STYLE, compound ? 'start' : 'middle'));
  detailLines(s).forEach((line, i) => {
    const row = i + (tags === null ? 0 : 1);
    parts.push(text(compound ? 14 : 12, titleY + 18 + row * 16, line, DETAIL_STYLE));
  });
  return `<g ${at}>${parts.join('')}</g>`;
}

function initialMarker(child: LayoutNode): string {
  const y = child.y + Math.min(18, child.height / 2);
  return (
    `<circle cx="${n(child.x - 24)}" cy="${n(y)}" r="4" style="fill: ${COLORS.text}"/>` +
    `<path d="M${n(child.x - 20)},${n(y)} L${n(child.x - 2)},${n(y)}" marker-end="url(#cr-arrow)" style="fill: none; stroke: ${COLORS.text}; stroke-width: 1.4"/>`
  );
}

function edgeShape(def: MachineDefinition, edge: LayoutEdge): string {
  const dash = edge.targetless ? '; stroke-dasharray: 4 3' : '';
  const parts = [
    `<path d="${pathOf(edge.points)}" marker-end="url(#cr-arrow)" style="fill: none; stroke: ${COLORS.line}; stroke-width: 1.4${dash}"/>`,
  ];
  const label = edge.label;
  if (label) {
    const t = def.transitions[edge.transition];
    const trigger = t ? triggerText(def, t) : '';
    const x = label.width / 2;
    // The label's lines as the layout sized them, the event in a bolder weight.
    const lines = wrapLabel(label.text).map((line, i) => {
      const lead = i === 0 && line.startsWith(trigger) ? trigger : '';
      const rest = lead ? line.slice(lead.length) : line;
      const event = lead ? `<tspan style="font-weight: 600; fill: ${COLORS.text}">${escapeXml(lead)}</tspan>` : '';
      return `<tspan x="${n(x)}" dy="${i === 0 ? 0 : 14}">${event}${escapeXml(rest)}</tspan>`;
    });
    parts.push(
      `<g transform="translate(${n(label.x)} ${n(label.y)})">` +
        `<rect width="${n(label.width)}" height="${n(label.height)}" rx="8" style="fill: ${COLORS.surface}; stroke: ${COLORS.pill}"/>` +
        `<text x="${n(x)}" y="12" text-anchor="middle" style="font: 12px ${FONT}; fill: ${COLORS.label}">${lines.join('')}</text></g>`,
    );
  }
  return `<g>${parts.join('')}</g>`;
}

/** The whole diagram: states outside-in, then initial markers, then transitions over them. */
export function renderSvg(def: MachineDefinition, layout: Layout): string {
  const nodes = Object.values(layout.nodes).sort((a, b) => a.depth - b.depth);
  // Everything drawn (loops and labels may reach past the root box), in whole pixels, so a
  // raster of it has exactly twice, three times ... its size.
  const extent = extentOf(layout);
  const left = Math.floor(extent.x - MARGIN);
  const top = Math.floor(extent.y - MARGIN);
  const width = Math.ceil(extent.x + extent.width + MARGIN) - left;
  const height = Math.ceil(extent.y + extent.height + MARGIN) - top;
  const title = def.name || def.machineId || 'machine';
  const body = [
    ...nodes.map((node) => stateShape(def, node)),
    ...nodes.map((node) => {
      const child = node.initial ? layout.nodes[node.initial] : undefined;
      return child ? initialMarker(child) : '';
    }),
    ...Object.values(layout.edges).map((edge) => edgeShape(def, edge)),
  ];
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="${left} ${top} ${width} ${height}">`,
    `<title>${escapeXml(title)}</title>`,
    `<defs><marker id="cr-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" style="fill: ${COLORS.line}"/></marker></defs>`,
    `<rect x="${left}" y="${top}" width="${width}" height="${height}" style="fill: ${COLORS.surface}"/>`,
    ...body.filter((part) => part !== ''),
    `</svg>`,
    '',
  ].join('\n');
}
