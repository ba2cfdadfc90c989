import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sendJson } from '../gateway/http.ts';
import type { BackendService } from '../service.ts';

/**
 * The local mail catcher (the CLI's Inbucket/Mailpit): every mail the auth service sends
 * lands here, in memory, newest first. `/mailbox` is a page a person reads; `/mailbox/api/...`
 * is the JSON tests read codes and links from.
 */
export interface Mail {
  id: string;
  to: string;
  from: string;
  subject: string;
  /** GoTrue's template kind: signup, invite, magiclink, recovery, email_change, reauthentication. */
  kind: string;
  text: string;
  html: string;
  /** The one-time code the mail carries, when it carries one. */
  otp: string | null;
  /** The verification link the mail carries, when it carries one. */
  link: string | null;
  created_at: string;
}

export const MAILBOX_PREFIX = '/mailbox';
const KEEP = 500;

export class Mailbox {
  private mails: Mail[] = [];

  deliver(mail: Omit<Mail, 'id' | 'created_at' | 'from'>, now: number): Mail {
    const stored: Mail = {
      id: randomUUID(),
      from: 'Supabase Auth <admin@email.chartroom.local>',
      created_at: new Date(now).toISOString(),
      ...mail,
    };
    this.mails.unshift(stored);
    if (this.mails.length > KEEP) this.mails.length = KEEP;
    return stored;
  }

  /** Newest first; `to` matches the address case-insensitively. */
  list(to?: string): Mail[] {
    if (!to) return [...this.mails];
    const wanted = to.toLowerCase();
    return this.mails.filter((m) => m.to.toLowerCase() === wanted);
  }

  get(id: string): Mail | undefined {
    return this.mails.find((m) => m.id === id);
  }

  clear(to?: string): void {
    if (!to) this.mails = [];
    else this.mails = this.mails.filter((m) => m.to.toLowerCase() !== to.toLowerCase());
  }
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(mails: Mail[], to: string | null): string {
  const rows = mails
    .map(
      (m) => `<article>
  <header><strong>${escapeHtml(m.subject)}</strong><span>to ${escapeHtml(m.to)} · ${escapeHtml(m.created_at)}</span></header>
  <div class="body">${m.html}</div>
  ${m.otp ? `<p>Code: <code>${escapeHtml(m.otp)}</code></p>` : ''}
</article>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Mailbox · Chartroom</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;color:#1d2433}
article{border:1px solid #d6dae3;border-radius:8px;padding:1rem;margin:0 0 1rem}
header{display:flex;flex-direction:column;gap:.25rem;margin-bottom:.5rem}header span{color:#5b6478;font-size:13px}
code{font-size:18px;letter-spacing:.15em}form{margin-bottom:1.5rem}
</style></head><body>
<h1>Mailbox</h1>
<p>Every mail the local auth server sends lands here (nothing leaves this machine). JSON: <a href="${MAILBOX_PREFIX}/api/messages">${MAILBOX_PREFIX}/api/messages</a>.</p>
<form method="get"><label>Address <input name="to" type="email" value="${escapeHtml(to ?? '')}"></label> <button>Filter</button></form>
${rows || '<p>No mail yet.</p>'}
</body></html>`;
}

/**
 * Serves the mailbox under /mailbox: `GET /` the page, `GET /api/messages[?to=]` the list,
 * `GET /api/messages/:id` one mail, `DELETE /api/messages[?to=]` empties it.
 */
export function createMailboxService(mailbox: Mailbox): BackendService {
  const html = (res: ServerResponse, body: string) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(body);
  };
  return {
    prefix: MAILBOX_PREFIX,
    tolerateBadToken: true,
    handle(req, res, ctx) {
      req.resume();
      const to = ctx.url.searchParams.get('to');
      const path = ctx.path.replace(/\/+$/, '') || '/';
      if (ctx.method === 'GET' && path === '/') html(res, page(mailbox.list(to ?? undefined), to));
      else if (ctx.method === 'GET' && path === '/api/messages') {
        const messages = mailbox.list(to ?? undefined);
        sendJson(res, 200, { total: messages.length, messages });
      } else if (ctx.method === 'DELETE' && path === '/api/messages') {
        mailbox.clear(to ?? undefined);
        sendJson(res, 200, {});
      } else if (ctx.method === 'GET' && path.startsWith('/api/messages/')) {
        const mail = mailbox.get(path.slice('/api/messages/'.length));
        if (mail) sendJson(res, 200, mail);
        else sendJson(res, 404, { message: 'No such message' });
      } else sendJson(res, 404, { message: 'Not found' });
      return Promise.resolve();
    },
  };
}
