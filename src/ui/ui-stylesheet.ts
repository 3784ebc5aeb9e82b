/**
 * The page's only stylesheet, served by idem at `/assets/ui.css` (no CDN, no web fonts, no
 * build step). Calendar colours carry a text label too (each day's title and the legend).
 */
export const UI_STYLESHEET = `
:root { --fg: #1d2330; --muted: #5b6474; --line: #d9dde5; --bg: #f6f7f9; --card: #fff;
  --completed: #2e9d5b; --noop: #9fd3b0; --failed: #d23c3c; --stopped: #8a94a6; --needs_review: #e69a17; --unavailable: #d9c21a; --running: #2f6fd6;
  --dead: #6b2a8f; --missing: #fff; --none: #eef0f3; --not_yet: #f6f7f9; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; align-items: center; gap: 1.5rem; padding: .6rem 1.2rem; background: #1d2330; color: #fff; }
header a { color: #cfd6e4; text-decoration: none; padding: .2rem .1rem; }
header a.here { color: #fff; border-bottom: 2px solid #fff; }
header .brand { font-weight: 700; color: #fff; }
header .db { margin-left: auto; color: #8d97a8; font-size: 12px; }
main { padding: 1rem 1.2rem 3rem; max-width: 1200px; }
h1 { font-size: 20px; margin: .2rem 0 1rem; }
h2 { font-size: 16px; margin: 1.4rem 0 .5rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: .8rem 1rem; margin-bottom: 1rem; }
.card > h2:first-child { margin-top: 0; }
.meta { color: var(--muted); font-size: 13px; }
table { border-collapse: collapse; width: 100%; background: var(--card); }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: 12px; }
code, pre { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { white-space: pre-wrap; word-break: break-all; margin: 0; max-height: 12em; overflow: auto; background: #f3f4f7; padding: .3rem .4rem; border-radius: 4px; }
.cmd { display: block; background: #1d2330; color: #e8ecf3; padding: .3rem .5rem; border-radius: 4px; margin: .15rem 0; user-select: all; }
.calendar { display: grid; grid-template-columns: repeat(auto-fill, 16px); gap: 3px; margin: .5rem 0; }
.day { width: 16px; height: 16px; border-radius: 3px; border: 1px solid rgba(0,0,0,.12); display: block; }
.day.missing { border: 1px dashed var(--failed); }
.legend { display: flex; flex-wrap: wrap; gap: .8rem; font-size: 12px; color: var(--muted); }
.legend span { display: inline-flex; align-items: center; gap: .3rem; }
.legend .day { width: 12px; height: 12px; }
${['completed', 'noop', 'failed', 'stopped', 'unavailable', 'needs_review', 'running', 'dead', 'missing', 'none', 'not_yet'].map((s) => `.s-${s} { background: var(--${s}); }`).join('\n')}
.badge { display: inline-block; padding: 0 .45rem; border-radius: 9px; font-size: 12px; color: #fff; white-space: nowrap; }
.badge.s-missing, .badge.s-none, .badge.s-not_yet, .badge.s-noop { color: var(--fg); border: 1px solid var(--line); }
.pager { display: flex; gap: 1rem; margin: .5rem 0; }
.attempts code.command { color: var(--muted); overflow-wrap: anywhere; }
.attempts pre.attempt-error, .attempts details { margin-top: .25rem; }
.attempts summary { cursor: pointer; }
.flag { color: var(--dead); font-weight: 600; }
.empty { color: var(--muted); font-style: italic; }
form.login { max-width: 22rem; margin: 4rem auto; }
form.login input { width: 100%; padding: .4rem; margin: .4rem 0; font: inherit; }
svg text { font: 11px system-ui, sans-serif; fill: var(--fg); }
`;
