/** The wordmark: two states and a transition, the smallest statechart. */
export function Brand() {
  return (
    <a className="brand" href="/" aria-label="Chartroom home">
      <svg width="22" height="22" viewBox="0 0 22 22" aria-hidden="true">
        <rect x="1.5" y="3" width="8" height="7" rx="2.5" fill="none" stroke="currentColor" strokeWidth="1.6" />
        <rect x="12.5" y="12" width="8" height="7" rx="2.5" fill="currentColor" />
        <path d="M9.5 6.5h3.5a3 3 0 0 1 3 3V12" fill="none" stroke="currentColor" strokeWidth="1.6" />
      </svg>
      <span>Chartroom</span>
    </a>
  );
}
