/**
 * The diagram exactly as shown, as a file: the live `<svg>` is cloned with every
 * element's computed style written inline (so the file needs no stylesheet), the pan and
 * zoom are taken out, and the size is the laid-out diagram's. PNG draws that SVG on a
 * canvas of the same size.
 */

const STYLE_PROPS = [
  'fill',
  'fill-opacity',
  'stroke',
  'stroke-width',
  'stroke-dasharray',
  'stroke-opacity',
  'opacity',
  'font-family',
  'font-size',
  'font-weight',
  'font-style',
  'text-anchor',
  'dominant-baseline',
  'visibility',
  'display',
  'color',
  'paint-order',
  'rx',
  'ry',
];

export function diagramSvgText(svg: SVGSVGElement, width: number, height: number): string {
  const clone = svg.cloneNode(true) as SVGSVGElement;
  const from = [svg, ...svg.querySelectorAll('*')];
  const to = [clone, ...clone.querySelectorAll('*')];
  from.forEach((el, i) => {
    const target = to[i];
    if (!target) return;
    const computed = getComputedStyle(el);
    const style = STYLE_PROPS.map((p) => `${p}:${computed.getPropertyValue(p)}`)
      .filter((s) => !s.endsWith(':'))
      .join(';');
    // Inline styles already there (the shapes' positions are CSS transforms) are kept, first.
    const own = el.getAttribute('style');
    target.setAttribute('style', own ? `${own};${style}` : style);
    target.removeAttribute('class');
  });
  // The groups right under the <svg> carry the pan and zoom: the file shows the whole diagram at scale 1.
  for (const g of clone.querySelectorAll(':scope > g')) g.setAttribute('transform', 'translate(0 0) scale(1)');
  clone.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  clone.setAttribute('width', String(Math.ceil(width)));
  clone.setAttribute('height', String(Math.ceil(height)));
  clone.setAttribute('viewBox', `0 0 ${Math.ceil(width)} ${Math.ceil(height)}`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(clone)}`;
}

export async function diagramPng(svgText: string, width: number, height: number): Promise<Blob> {
  const w = Math.ceil(width);
  const h = Math.ceil(height);
  const url = URL.createObjectURL(new Blob([svgText], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.width = w;
    img.height = h;
    await new Promise<void>((resolve, reject) => {
      img.onload = () => resolve();
      img.onerror = () => reject(new Error('the diagram could not be drawn as an image'));
      img.src = url;
    });
    const canvas = document.createElement('canvas');
    canvas.width = w;
    canvas.height = h;
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('this browser cannot draw images');
    ctx.drawImage(img, 0, 0, w, h);
    return await new Promise<Blob>((resolve, reject) =>
      canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the PNG could not be made'))), 'image/png'),
    );
  } finally {
    URL.revokeObjectURL(url);
  }
}

export function download(name: string, data: Blob | string, type = 'text/plain'): void {
  const blob = typeof data === 'string' ? new Blob([data], { type }) : data;
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    document.body.append(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
}
