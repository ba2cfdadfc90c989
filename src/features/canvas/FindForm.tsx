import type { Find } from './useFind.ts';

/** The search box: a state's name (suggested from the chart) jumps to it. */
export function FindForm({ find }: { find: Find }) {
  return (
    <form className="canvas-find" role="search" onSubmit={find.onSubmit}>
      <input
        type="search"
        aria-label="Find a state"
        placeholder="Find…"
        list="canvas-state-names"
        value={find.query}
        onChange={(e) => find.setQuery(e.target.value)}
        onFocus={() => find.setInUse(true)}
        onBlur={() => find.setInUse(false)}
      />
      <datalist id="canvas-state-names">
        {find.names.map((n) => (
          <option key={n} value={n} />
        ))}
      </datalist>
      {find.missed !== null && (
        <span className="canvas-find-miss" role="status">
          No state named “{find.missed}”
        </span>
      )}
    </form>
  );
}
