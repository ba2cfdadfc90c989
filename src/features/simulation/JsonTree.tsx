import type { Json } from '../../lib/model/types.ts';

/** A JSON value as a nested list: objects and arrays open and close, scalars shown as JSON. */
export function JsonTree({ value, label }: { value: Json; label: string }) {
  return (
    <div className="json-tree" aria-label={label}>
      <JsonNode value={value} />
    </div>
  );
}

function JsonNode({ value }: { value: Json }) {
  if (value === null || typeof value !== 'object')
    return <code className={`json-${value === null ? 'null' : typeof value}`}>{JSON.stringify(value)}</code>;
  const entries: [string, Json][] = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  if (entries.length === 0) return <code>{Array.isArray(value) ? '[]' : '{}'}</code>;
  return (
    <ul className="json-children">
      {entries.map(([key, child]) => (
        <li key={key}>
          {child !== null && typeof child === 'object' ? (
            <details open>
              <summary>{key}</summary>
              <JsonNode value={child} />
            </details>
          ) : (
            <>
              <span className="json-key">{key}:</span> <JsonNode value={child} />
            </>
          )}
        </li>
      ))}
    </ul>
  );
}
