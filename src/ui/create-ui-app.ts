import { createHash, timingSafeEqual } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { redactSecrets } from '../text/redact-secrets.ts';
import { nowView } from './now-view.ts';
import { pipelinesView, pipelineView } from './pipelines-view.ts';
import { reviewView } from './review-view.ts';
import { runView } from './run-view.ts';
import type { UiContext } from './ui-context.ts';
import { html, type Html } from './ui-html.ts';
import { layout, pageNumber } from './ui-layout.ts';
import { UI_STYLESHEET } from './ui-stylesheet.ts';

/** The cookie that carries the token once the page has asked for it. */
const TOKEN_COOKIE = 'idem_ui_token';

/**
 * What every answer says about itself: no script may run and nothing loads from elsewhere (the
 * page has no script; an escaping mistake would still run nothing), no framing, no sniffing.
 */
const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

function sameToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(token));
}

/** A path on this page to go back to after the token: `/…` only (never `//host`), else `/`. */
function localPath(value: unknown): string {
  return typeof value === 'string' && value.startsWith('/') && !value.startsWith('//') && !value.includes('\\') ? value : '/';
}

function loginPage(next: string, wrong: boolean): Html {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>idem ui: token</title><link rel="stylesheet" href="/assets/ui.css"></head>
<body><form class="login card" method="post" action="/login"><h1>idem ui</h1>
<p>This page is served on an address other than loopback: enter the token set in <code>IDEM_UI_TOKEN</code> where idem ui runs.</p>
${wrong ? html`<p class="flag">That is not the token.</p>` : ''}
<input type="password" name="token" autocomplete="current-password" aria-label="token" autofocus>
<input type="hidden" name="next" value="${next}">
<button type="submit">Open</button></form></body></html>`;
}

/**
 * The `idem ui` application (hono): the views Pipelines (`/pipelines`, `/pipelines/:name`), a run
 * (`/run?pipeline=P&key=K`), Now (`/now`) and Review (`/review`), and the stylesheet. Read-only:
 * it answers GET (and the token form's POST) and writes nothing to the database.
 * @param options.token when set (`IDEM_UI_TOKEN`), every view needs it: the page asks for it once and keeps it in an HttpOnly cookie (or send `Authorization: Bearer TOKEN`).
 * @param options.allowedHosts when set (bound to loopback), requests must name one of these host names (any port), so a web page elsewhere cannot reach the page through a DNS name that points at 127.0.0.1.
 */
export function createUiApp(ctx: UiContext, options: { token?: string; allowedHosts?: ReadonlySet<string>; onError?: (error: Error) => void } = {}): Hono {
  const app = new Hono();
  const database = ctx.db.description;
  const page = (c: Context, title: string, here: string, body: Html, refreshSeconds?: number) =>
    c.html(layout({ title, here, body, database, ...(refreshSeconds ? { refreshSeconds } : {}) }));

  app.use(async (c, next) => {
    await next();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(name, value);
  });
  if (options.allowedHosts) {
    const allowed = options.allowedHosts;
    app.use(async (c, next) => {
      // The Host header's name without its port (`[::1]:4321` → `[::1]`).
      const name = (c.req.header('host') ?? '').toLowerCase().replace(/:\d+$/, '');
      if (!allowed.has(name)) return c.text('idem ui: unknown Host header', 421);
      return next();
    });
  }
  app.get('/assets/ui.css', (c) => c.body(UI_STYLESHEET, 200, { 'content-type': 'text/css; charset=utf-8' }));
  app.get('/favicon.ico', (c) => c.body(null, 204));

  const token = options.token;
  if (token !== undefined) {
    app.post('/login', async (c) => {
      const form = await c.req.parseBody();
      const next = localPath(form.next);
      if (!sameToken(typeof form.token === 'string' ? form.token : undefined, token)) return c.html(loginPage(next, true), 401);
      setCookie(c, TOKEN_COOKIE, token, { httpOnly: true, sameSite: 'Strict', path: '/' });
      return c.redirect(next, 303);
    });
    app.use(async (c, next) => {
      const bearer = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1];
      if (sameToken(getCookie(c, TOKEN_COOKIE), token) || sameToken(bearer, token)) return next();
      return c.html(loginPage(localPath(new URL(c.req.url).pathname + new URL(c.req.url).search), false), 401);
    });
  }

  app.get('/', (c) => c.redirect('/pipelines', 302));
  app.get('/pipelines', async (c) => page(c, 'Pipelines', '/pipelines', await pipelinesView(ctx)));
  app.get('/pipelines/:name', async (c) => {
    const name = c.req.param('name');
    const end = c.req.query('end');
    return page(c, name, '/pipelines', await pipelineView(ctx, name, { page: pageNumber(c.req.query('page')), ...(end ? { end } : {}) }));
  });
  app.get('/run', async (c) => {
    const jobName = c.req.query('pipeline') ?? '';
    const runKey = c.req.query('key') ?? '';
    const body = await runView(ctx, { jobName, runKey, attemptsPage: pageNumber(c.req.query('a')), quarantinePage: pageNumber(c.req.query('q')), ledgerPage: pageNumber(c.req.query('l')) });
    if (body === undefined) return c.html(layout({ title: 'No such run', here: '', database, body: html`<p class="empty">${jobName} has no run for run key ${runKey}</p>` }), 404);
    return page(c, `${jobName} ${runKey}`, '/pipelines', body);
  });
  app.get('/now', async (c) => page(c, 'Now', '/now', await nowView(ctx), 5));
  app.get('/review', async (c) => {
    const only = c.req.query('pipeline');
    return page(c, 'Review', '/review', await reviewView(ctx, { page: pageNumber(c.req.query('page')), ...(only ? { only } : {}) }));
  });
  app.notFound((c) => c.html(layout({ title: 'Not found', here: '', database, body: html`<p class="empty">nothing here</p>` }), 404));
  app.onError((error, c) => {
    options.onError?.(error);
    return c.html(layout({ title: 'Error', here: '', database, body: html`<pre class="error">${redactSecrets(error.message)}</pre>` }), 500);
  });
  return app;
}
