import { describe, expect, it } from 'vitest';
import { serviceClient } from '../../setup/clients.ts';
import { makeBucket } from '../storage-helpers.ts';

/** Storage shapes storage-js's live suite checks, through the real client. */
describe('storage object info', () => {
  it('gives metadata {} (not null) for an object uploaded without user metadata', async () => {
    const bucket = await makeBucket('conf-info');
    const storage = serviceClient().storage.from(bucket);
    expect((await storage.upload('plain.txt', Buffer.from('x'), { contentType: 'text/plain' })).error).toBeNull();
    const info = await storage.info('plain.txt');
    expect(info.error).toBeNull();
    expect(info.data?.metadata).toEqual({});
    expect((await storage.upload('tagged.txt', Buffer.from('y'), { metadata: { k: 'v' } })).error).toBeNull();
    expect((await storage.info('tagged.txt')).data?.metadata).toEqual({ k: 'v' });
  });
});
