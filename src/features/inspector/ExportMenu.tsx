import { useState } from 'react';
import type { TextFormat } from '../../lib/convert/index.ts';
import type { MachineDefinition } from '../../lib/model/types.ts';
import { copyText, diagramPng, diagramSvgText, download } from './image-export.ts';

const TEXT_FORMATS: { format: TextFormat; label: string; extension: string }[] = [
  { format: 'typescript', label: 'TypeScript', extension: 'ts' },
  { format: 'json', label: 'JSON', extension: 'json' },
  { format: 'scxml', label: 'SCXML', extension: 'scxml' },
  { format: 'mermaid', label: 'Mermaid', extension: 'mmd' },
];

interface Props {
  definition: MachineDefinition;
  /** The diagram's laid-out size (null before the first layout). */
  size: { width: number; height: number } | null;
  /** The live diagram's <svg>, found when an image is asked for. */
  findSvg: () => SVGSVGElement | null;
}

/** The Export menu: images of the diagram as shown, and the chart as text in four formats, each with Copy. */
export function ExportMenu({ definition, size, findSvg }: Props) {
  const [open, setOpen] = useState(false);
  const [shown, setShown] = useState<{ label: string; extension: string; text: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const base = (definition.name || definition.machineId || 'machine').replace(/[^\w.-]+/g, '-');

  const image = async (kind: 'svg' | 'png') => {
    setOpen(false);
    setError(null);
    const svg = findSvg();
    if (!svg || !size) return setError('The diagram is not laid out yet.');
    const text = diagramSvgText(svg, size.width, size.height);
    if (kind === 'svg') return download(`${base}.svg`, text, 'image/svg+xml');
    try {
      download(`${base}.png`, await diagramPng(text, size.width, size.height));
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  const text = async (format: TextFormat, label: string, extension: string) => {
    setOpen(false);
    setError(null);
    setCopied(false);
    try {
      const convert = await import('../../lib/convert/index.ts');
      setShown({ label, extension, text: convert.FORMATS[format].export(definition) });
    } catch (err) {
      setError(`Could not export ${label}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };

  return (
    <div className="inspector-export">
      <button type="button" aria-haspopup="menu" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        Export
      </button>
      {open && (
        <ul role="menu" aria-label="Export" className="inspector-menu">
          <li role="none">
            <button type="button" role="menuitem" onClick={() => void image('svg')}>
              SVG
            </button>
          </li>
          <li role="none">
            <button type="button" role="menuitem" onClick={() => void image('png')}>
              PNG
            </button>
          </li>
          {TEXT_FORMATS.map((f) => (
            <li role="none" key={f.format}>
              <button type="button" role="menuitem" onClick={() => void text(f.format, f.label, f.extension)}>
                {f.label}
              </button>
            </li>
          ))}
        </ul>
      )}
      {error && (
        <p className="message error" role="alert">
          {error}
        </p>
      )}
      {shown && (
        <div className="inspector-exported" role="group" aria-label={`Exported ${shown.label}`}>
          <textarea readOnly aria-label={`${shown.label} export`} value={shown.text} rows={10} />
          <div className="inspector-row">
            <button
              type="button"
              onClick={() => {
                void copyText(shown.text).then(() => setCopied(true));
              }}
            >
              Copy
            </button>
            <button type="button" onClick={() => download(`${base}.${shown.extension}`, shown.text)}>
              Download
            </button>
            <button type="button" onClick={() => setShown(null)}>
              Close
            </button>
            {copied && <span role="status">Copied</span>}
          </div>
        </div>
      )}
    </div>
  );
}
