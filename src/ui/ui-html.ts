import { html as honoHtml, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

/** A piece of the page's HTML: markup written here, with every interpolated value escaped. */
export type Html = HtmlEscapedString;

/**
 * The page's one template tag (hono's `html`): every interpolated string is HTML-escaped (`& < > " '`),
 * arrays are joined, `Html` pieces are kept as they are, `null`, `undefined` and booleans print nothing.
 * So a value from a source or a destination (a description with `<script>` in it) renders as text.
 * Synchronous: the page never interpolates a promise.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  return honoHtml(strings, ...values) as Html;
}

/** Markup the page itself wrote (an SVG it built from numbers), kept unescaped. Never for outside values. */
export function trusted(markup: string): Html {
  return raw(markup) as Html;
}
