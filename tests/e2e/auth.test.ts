import type { BrowserContext, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../setup/clients.ts';
import { createAccount, fillCredentials, PASSWORD, useBrowserApp } from './harness.ts';

/**
 * The session flows in a real browser against the real backend: the built app served as
 * `npm start` serves it. Elements are found the way people find them: by role and name.
 */

const app = useBrowserApp();

// Each test starts from a browser with no session left by the one before.
afterEach(() => app.closeContexts());

async function openApp(context?: BrowserContext): Promise<Page> {
  const page = await (context ?? (await app.newContext())).newPage();
  await page.goto(app.url);
  return page;
}

const signInForm = (page: Page) => page.getByRole('heading', { name: 'Sign in to Chartroom' });
const signOutButton = (page: Page) => page.getByRole('button', { name: 'Sign out' });
const header = (page: Page) => page.getByRole('banner');

/** The top bar names the account by its profile (named from the email's local part at sign-up), with the account itself on hover. */
async function expectSignedInAs(page: Page, account: string) {
  await signOutButton(page).waitFor();
  const who = header(page).getByTestId('current-user');
  expect(await who.getAttribute('title')).toBe(account);
  await expect.poll(() => who.textContent()).toBe(account.split('@')[0]);
}

/** Makes the account from the sign-in form the page shows, and checks the top bar names it. */
async function signUpOn(page: Page, email: string) {
  await signInForm(page).waitFor();
  await createAccount(page, email);
  await expectSignedInAs(page, email);
}

describe('session in the browser', () => {
  it('signs up, survives a reload, signs out and signs in again', async () => {
    const page = await openApp();
    const email = uniqueEmail('e2e');
    await signUpOn(page, email);

    await page.reload();
    await expectSignedInAs(page, email);

    await signOutButton(page).click();
    await signInForm(page).waitFor();
    expect(await header(page).getByText(email).count()).toBe(0);

    await fillCredentials(page, email, PASSWORD);
    // Enter submits with the form's first button, Sign in.
    await page.getByLabel('Password').press('Enter');
    await expectSignedInAs(page, email);
  });

  it('shows why a sign-in failed', async () => {
    const page = await openApp();
    const email = uniqueEmail('e2e-wrong');
    await signInForm(page).waitFor();
    await createAccount(page, email);
    await signOutButton(page).click();

    await fillCredentials(page, email, 'not-my-password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('Wrong email or password');
    // The form is usable again, with focus back in the password field to retype it.
    expect(await page.getByRole('button', { name: 'Sign in', exact: true }).isEnabled()).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('auth-password');
  });

  it('continues as guest', async () => {
    const page = await openApp();
    await page.getByRole('button', { name: 'Continue as guest' }).click();
    await expectSignedInAs(page, 'Guest');
    await page.reload();
    await expectSignedInAs(page, 'Guest');
  });

  it('follows sign-out and sign-in made in another tab of the same browser', async () => {
    const context = await app.newContext();
    const first = await openApp(context);
    const email = uniqueEmail('e2e-tabs');
    await signUpOn(first, email);

    const second = await openApp(context);
    await expectSignedInAs(second, email);

    await signOutButton(first).click();
    await signInForm(first).waitFor();
    await signInForm(second).waitFor();
    expect(await signOutButton(second).count()).toBe(0);

    // And back: signing in in the second tab signs the first one in too.
    await fillCredentials(second, email, PASSWORD);
    await second.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expectSignedInAs(second, email);
    await expectSignedInAs(first, email);
  });

  it('works from the keyboard alone', async () => {
    const page = await openApp();
    const email = uniqueEmail('e2e-keys');
    await signInForm(page).waitFor();
    // Focus starts in Email; Tab order follows the form: Password, Sign in, Create account.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('auth-email');
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Create account');
    await page.keyboard.press('Enter');
    await expectSignedInAs(page, email);
    await signOutButton(page).focus();
    await page.keyboard.press('Enter');
    await signInForm(page).waitFor();
  });

  it('keeps separate browsers separate', async () => {
    const ada = await openApp();
    const bob = await openApp();
    const email = uniqueEmail('e2e-ada');
    await signUpOn(ada, email);
    await bob.reload();
    await signInForm(bob).waitFor();
  });
});
