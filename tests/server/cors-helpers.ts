import { expect } from 'vitest';

/**
 * Sends the preflight a browser at `origin` sends before a cross-origin POST carrying
 * `headers` (comma-separated, as browsers list them), and checks that the answer lets
 * it through: 200, the origin and exactly the requested headers echoed back, and
 * `allowedMethod` among the allowed methods.
 */
export async function expectPreflightAllows(
  url: string,
  origin: string,
  headers: string,
  allowedMethod: string,
): Promise<void> {
  const res = await fetch(url, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': headers },
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('access-control-allow-origin')).toBe(origin);
  expect(res.headers.get('access-control-allow-headers')).toBe(headers);
  expect(res.headers.get('access-control-allow-methods')).toContain(allowedMethod);
}
