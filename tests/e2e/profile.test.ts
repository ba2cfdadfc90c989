import { describe, expect, it } from 'vitest';
import { useBrowserApp } from './harness.ts';

/** The profile page: name and colour saved (and shown in the top bar), an avatar uploaded with a progress bar. */

// A 1x1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

const app = useBrowserApp();

describe('profile', () => {
  it('changes name and colour, uploads an avatar with progress, refuses a wrong file, and keeps it all after a reload', async () => {
    const { page, email } = await app.signUp({ tag: 'profile' });
    // The top bar names the person by their profile (named from the email at sign-up), the email on hover.
    const who = page.getByTestId('current-user');
    await expect.poll(() => who.textContent()).toBe(email.split('@')[0]);
    expect(await who.getAttribute('title')).toBe(email);
    await page.getByRole('link', { name: 'Profile' }).click();
    await page.waitForURL('**/profile');

    await page.getByLabel('Display name').fill('Ada Lovelace');
    await page.getByRole('radiogroup', { name: 'Colour' }).getByRole('radio', { name: 'Teal' }).check();
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Profile saved.').waitFor();
    // The rename reaches the top bar live, without a reload.
    await expect.poll(() => who.textContent()).toBe('Ada Lovelace');

    await page.getByLabel('Upload avatar').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: PNG });
    await page.getByText('Avatar updated.').waitFor();
    expect(await page.getByRole('progressbar', { name: 'Upload progress' }).getAttribute('value')).toBe('100');
    const avatar = page.getByRole('img', { name: 'Your avatar' });
    await avatar.waitFor();
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('img[alt="Your avatar"]');
      return img !== null && img.complete && img.naturalWidth === 1;
    });
    // The top bar shows the person as the room does: their colour and their image.
    const mine = page.locator('.session-bar').getByRole('img', { name: 'You: Ada Lovelace' });
    await mine.locator('img').waitFor();
    expect(await mine.getAttribute('style')).toContain('#12a594');

    await page
      .getByLabel('Upload avatar')
      .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    expect(await page.getByRole('alert').textContent()).toContain('Choose a PNG, JPEG, WebP or GIF image.');

    await page.reload();
    await page.getByRole('heading', { name: 'Your profile' }).waitFor();
    await page.getByRole('img', { name: 'Your avatar' }).waitFor();
    expect(await page.getByLabel('Display name').inputValue()).toBe('Ada Lovelace');
    await expect.poll(() => who.textContent()).toBe('Ada Lovelace');
    expect(await page.getByRole('radio', { name: 'Teal' }).isChecked()).toBe(true);
  });
});
