import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { importTypeScript } from '../../src/lib/convert/ts-import.ts';
import { LeftOutWarning } from '../../src/features/inspector/LeftOutWarning.tsx';

describe('the import dialog on a machine read in part', () => {
  it('says as an alert how many states and transitions were left out and why', () => {
    const r = importTypeScript(`
import { createMachine } from 'xstate';
import { S } from './states';
createMachine({ initial: 'a', states: { a: { on: { GO: S.B } }, [S.B]: {}, [S.C]: { initial: 'x', states: { x: {} } } } });`);
    expect(r.leftOut).toBeDefined();
    const html = renderToStaticMarkup(<LeftOutWarning leftOut={r.leftOut!} />);
    expect(html).toContain('role="alert"');
    expect(html).toContain('Not the whole machine: 3 states, 1 transition left out.');
    expect(html).toContain('3 state keys come from &quot;S&quot;, defined in another file (./states)');
  });
});
