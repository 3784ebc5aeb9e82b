import { html, type Html } from './ui-html.ts';

/** The views, in the order of the page's navigation. */
const NAV = [
  { path: '/pipelines', label: 'Pipelines' },
  { path: '/now', label: 'Now' },
  { path: '/review', label: 'Review' },
] as const;

/**
 * A whole page: the navigation (`here` marks the current view), the title and `body`.
 * @param options.refreshSeconds reload the page this often (the Now view), by a meta refresh: the page runs no script.
 */
export function layout(args: { title: string; here: string; body: Html; database: string; refreshSeconds?: number }): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${args.refreshSeconds ? html`<meta http-equiv="refresh" content="${args.refreshSeconds}">` : ''}
<title>${args.title} · idem</title>
<link rel="stylesheet" href="/assets/ui.css">
</head>
<body>
<header><span class="brand">idem</span>${NAV.map((n) => html`<a href="${n.path}"${n.path === args.here ? html` class="here"` : ''}>${n.label}</a>`)}<span class="db">${args.database} · read-only</span></header>
<main>
<h1>${args.title}</h1>
${args.body}
</main>
</body>
</html>`;
}

/** `path` with `params` as its query string (undefined values left out). */
export function href(path: string, params: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) query.set(key, String(value));
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

/** The address of a run's view. */
export function runHref(jobName: string, runKey: string): string {
  return href('/run', { pipeline: jobName, key: runKey });
}

/**
 * Earlier / later links of a paginated list: `page` is 1-based, `hasMore` whether a next page
 * exists, `link(page)` the address of a page.
 */
export function pager(args: { page: number; hasMore: boolean; link: (page: number) => string; what: string }): Html {
  if (args.page === 1 && !args.hasMore) return html``;
  return html`<nav class="pager" aria-label="${args.what} pages">
${args.page > 1 ? html`<a href="${args.link(args.page - 1)}">← previous ${args.what}</a>` : ''}
<span class="meta">page ${args.page}</span>
${args.hasMore ? html`<a href="${args.link(args.page + 1)}">next ${args.what} →</a>` : ''}
</nav>`;
}

/** A 1-based page number from a query parameter: anything else is page 1. */
export function pageNumber(value: string | undefined): number {
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 && n <= 1_000_000 ? n : 1;
}

/** An instant as `YYYY-MM-DD HH:MM:SS UTC`, or `-`. */
export function instant(iso: string | null): string {
  return iso === null ? '-' : `${iso.slice(0, 19).replace('T', ' ')} UTC`;
}

/** A duration in ms as `850 ms`, `12.3 s` or `4 min 05 s`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}
