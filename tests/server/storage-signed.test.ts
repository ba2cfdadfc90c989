import { describe, expect, it } from 'vitest';
import { signJwt } from '../../server/jwt.ts';
import { anonClient, backendInfo, serviceClient } from '../setup/clients.ts';
import { makeBucket, storageFetch, userClient } from './storage-helpers.ts';

function mint(claims: Record<string, unknown>): string {
  return signJwt(claims, backendInfo().jwtSecret);
}

describe('signed download URLs', () => {
  it('signs a URL that downloads without credentials, with the download disposition', async () => {
    const bucket = await makeBucket('sign');
    const storage = serviceClient().storage.from(bucket);
    await storage.upload('docs/report one.txt', Buffer.from('quarterly'), { contentType: 'text/plain' });
    const raw = await storageFetch(`/object/sign/${bucket}/docs/report one.txt`, {
      method: 'POST',
      body: JSON.stringify({ expiresIn: 60 }),
      headers: { 'content-type': 'application/json' },
    });
    const { signedURL } = (await raw.json()) as { signedURL: string };
    expect(signedURL).toMatch(new RegExp(`^/object/sign/${bucket}/docs/report one.txt\\?token=`));
    const payload = JSON.parse(
      Buffer.from(signedURL.split('token=')[1]!.split('.')[1]!, 'base64url').toString(),
    ) as Record<string, unknown>;
    expect(payload).toMatchObject({ url: `${bucket}/docs/report one.txt` });
    expect((payload.exp as number) - (payload.iat as number)).toBe(60);

    const { data, error } = await storage.createSignedUrl('docs/report one.txt', 60);
    expect(error).toBeNull();
    const res = await fetch(data!.signedUrl);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('quarterly');
    expect(res.headers.get('expires')).toMatch(/GMT$/);
    expect(res.headers.get('content-disposition')).toBeNull();

    const named = await storage.createSignedUrl('docs/report one.txt', 60, { download: 'q1.txt' });
    const attached = await fetch(named.data!.signedUrl);
    expect(attached.headers.get('content-disposition')).toBe("attachment; filename=q1.txt; filename*=UTF-8''q1.txt");
    await attached.arrayBuffer();
    const plain = await storage.createSignedUrl('docs/report one.txt', 60, { download: true });
    const plainRes = await fetch(plain.data!.signedUrl);
    expect(plainRes.headers.get('content-disposition')).toBe('attachment;');
    await plainRes.arrayBuffer();

    const missing = await storage.createSignedUrl('docs/none.txt', 60);
    expect(missing.error).toMatchObject({ statusCode: '404' });
    const bad = await storage.createSignedUrl('docs/report one.txt', -5);
    expect(bad.error).toMatchObject({ statusCode: '400' });
  });

  it('signs many paths at once, reporting the ones it cannot see', async () => {
    const bucket = await makeBucket('signs');
    const storage = serviceClient().storage.from(bucket);
    await storage.upload('a.txt', Buffer.from('A'));
    await storage.upload('b.txt', Buffer.from('B'));
    const { data, error } = await storage.createSignedUrls(['a.txt', 'b.txt', 'c.txt'], 120);
    expect(error).toBeNull();
    expect(data!.map((d) => [d.path, d.error])).toEqual([
      ['a.txt', null],
      ['b.txt', null],
      ['c.txt', 'Either the object does not exist or you do not have access to it'],
    ]);
    expect(await (await fetch(data![1]!.signedUrl!)).text()).toBe('B');
  });

  it('refuses expired, re-pointed, forged and upload-scoped tokens', async () => {
    const bucket = await makeBucket('tamper');
    const storage = serviceClient().storage.from(bucket);
    await storage.upload('a.txt', Buffer.from('A'));
    await storage.upload('b.txt', Buffer.from('B'));
    const now = Math.floor(Date.now() / 1000);
    const get = (key: string, token: string) =>
      storageFetch(`/object/sign/${bucket}/${key}?token=${token}`, { token: null });

    const expired = await get(
      'a.txt',
      mint({ url: `${bucket}/a.txt`, scope: 'download', iat: now - 120, exp: now - 60 }),
    );
    expect(expired.status).toBe(400);
    expect(await expired.json()).toEqual({
      statusCode: '400',
      code: 'InvalidJWT',
      error: 'InvalidJWT',
      message: '"exp" claim timestamp check failed',
    });

    const { data } = await storage.createSignedUrl('a.txt', 60);
    const token = new URL(data!.signedUrl).searchParams.get('token')!;
    const moved = await get('b.txt', token);
    expect(await moved.json()).toEqual({
      statusCode: '400',
      code: 'InvalidSignature',
      error: 'InvalidSignature',
      message: 'Invalid signature',
    });

    const [h, p] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    const swapped = `${h}.${Buffer.from(JSON.stringify({ ...claims, url: `${bucket}/b.txt` })).toString('base64url')}.${token.split('.')[2]!}`;
    const forged = await get('b.txt', swapped);
    expect(await forged.json()).toMatchObject({
      statusCode: '400',
      code: 'InvalidJWT',
      message: 'signature verification failed',
    });
    const garbage = await get('a.txt', 'not-a-token');
    expect(garbage.status).toBe(400);

    const upload = await get(
      'a.txt',
      mint({ url: `${bucket}/a.txt`, scope: 'upload', upsert: false, iat: now, exp: now + 60 }),
    );
    expect(await upload.json()).toMatchObject({ code: 'InvalidSignature' });
    const legacy = await get('a.txt', mint({ url: `${bucket}/a.txt`, iat: now, exp: now + 60 }));
    expect(await legacy.text()).toBe('A');
  });
});

describe('signed upload URLs', () => {
  it('uploads once without auth; overwrites only with an upsert token', async () => {
    const bucket = await makeBucket('up');
    const owner = userClient();
    const storage = serviceClient().storage.from(bucket);
    const signed = await storage.createSignedUploadUrl('inbox/file.txt');
    expect(signed.error).toBeNull();
    expect(signed.data!.signedUrl).toContain(`/storage/v1/object/upload/sign/${bucket}/inbox/file.txt?token=`);
    const anon = anonClient().storage.from(bucket);
    const first = await anon.uploadToSignedUrl('inbox/file.txt', signed.data!.token, Buffer.from('first'), {
      contentType: 'text/plain',
    });
    expect(first.error).toBeNull();
    expect(first.data).toMatchObject({ path: 'inbox/file.txt', fullPath: `${bucket}/inbox/file.txt` });
    const second = await anon.uploadToSignedUrl('inbox/file.txt', signed.data!.token, Buffer.from('second'), {
      upsert: true,
    });
    expect(second.error).toMatchObject({ statusCode: '409' });
    const upsertToken = await storage.createSignedUploadUrl('inbox/file.txt', { upsert: true });
    const third = await anon.uploadToSignedUrl('inbox/file.txt', upsertToken.data!.token, new Blob(['third']));
    expect(third.error).toBeNull();
    expect(await (await storage.download('inbox/file.txt')).data!.text()).toBe('third');

    const elsewhere = await anon.uploadToSignedUrl('inbox/other.txt', signed.data!.token, Buffer.from('x'));
    expect(elsewhere.error).toMatchObject({ statusCode: '400' });
    const downloadToken = await storage.createSignedUrl('inbox/file.txt', 60);
    const token = new URL(downloadToken.data!.signedUrl).searchParams.get('token')!;
    const misuse = await anon.uploadToSignedUrl('inbox/file.txt', token, Buffer.from('x'));
    expect(misuse.error).toMatchObject({ statusCode: '400' });
    expect(owner.sub).toBeTruthy();
  });
});

describe('public and authenticated URLs', () => {
  it('serves public buckets to anyone and keeps private ones behind RLS', async () => {
    const open = await makeBucket('pub', { public: true });
    const closed = await makeBucket('priv');
    await serviceClient().storage.from(open).upload('logo.txt', Buffer.from('open'));
    await serviceClient().storage.from(closed).upload('secret.txt', Buffer.from('closed'));

    const { data } = anonClient().storage.from(open).getPublicUrl('logo.txt');
    expect(data.publicUrl).toBe(`${backendInfo().url}/storage/v1/object/public/${open}/logo.txt`);
    const res = await fetch(data.publicUrl);
    expect(await res.text()).toBe('open');
    const withName = await fetch(
      anonClient().storage.from(open).getPublicUrl('logo.txt', { download: 'x.txt' }).data.publicUrl,
    );
    expect(withName.headers.get('content-disposition')).toContain('filename=x.txt');
    await withName.arrayBuffer();

    const hidden = await fetch(anonClient().storage.from(closed).getPublicUrl('secret.txt').data.publicUrl);
    expect(hidden.status).toBe(400);
    expect(await hidden.json()).toMatchObject({ statusCode: '404', code: 'NoSuchBucket' });
    const infoPublic = await storageFetch(`/object/info/public/${open}/logo.txt`, { token: null });
    expect(await infoPublic.json()).toMatchObject({ name: 'logo.txt', size: 4 });

    const anonRead = await anonClient().storage.from(closed).download('secret.txt');
    expect(anonRead.error).not.toBeNull();
    const noToken = await storageFetch(`/object/${closed}/secret.txt`, { token: null });
    expect(await noToken.json()).toMatchObject({ statusCode: '404', code: 'NoSuchBucket' });
    const service = await storageFetch(`/object/authenticated/${closed}/secret.txt`);
    expect(await service.text()).toBe('closed');
    const user = userClient();
    const userRead = await storageFetch(`/object/authenticated/${closed}/secret.txt`, { token: user.token });
    expect(await userRead.json()).toMatchObject({ statusCode: '404', code: 'NoSuchKey' });
  });
});
