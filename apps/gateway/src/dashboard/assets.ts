import { createHash } from 'node:crypto';

/**
 * The dashboard's only two assets, kept as strings in the bundle so the
 * gateway serves them itself (no CDN, works offline, one file to deploy).
 * Their URLs carry a content hash, so browsers may cache them for good.
 */

const STYLES = String.raw`
:root {
  --ink: #111827; --muted: #4b5563; --line: #d1d5db; --paper: #ffffff; --wash: #f3f4f6;
  --accent: #1d4ed8; --accent-ink: #ffffff; --ok: #166534; --warn: #92400e; --warn-bar: #b45309;
  --danger: #b91c1c; --focus: #f59e0b;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--ink); background: var(--wash); line-height: 1.5;
}
* { box-sizing: border-box; }
body { margin: 0; }
a { color: var(--accent); }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: var(--paper); padding: 0.5rem 1rem; z-index: 10; }
.skip:focus { left: 0.5rem; }
.top { background: var(--ink); color: #fff; }
.top-inner { max-width: 72rem; margin: 0 auto; padding: 0.5rem 1rem; display: flex; flex-wrap: wrap;
  align-items: center; gap: 0.5rem 1.5rem; }
.brand { font-weight: 700; font-size: 1.1rem; color: #fff; text-decoration: none; }
.top nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: 0.25rem; margin: 0; padding: 0; }
.top nav a { color: #e5e7eb; text-decoration: none; padding: 0.4rem 0.7rem; border-radius: 6px; display: inline-block; }
.top nav a:hover { background: #374151; }
.top nav a[aria-current="page"] { background: #fff; color: var(--ink); font-weight: 600; }
.top form { margin-left: auto; }
.top .button { background: transparent; border-color: #9ca3af; color: #fff; }
main { max-width: 72rem; margin: 0 auto; padding: 1.25rem 1rem 3rem; }
h1 { font-size: 1.6rem; margin: 0 0 1rem; }
h2 { font-size: 1.2rem; margin: 1.5rem 0 0.75rem; }
h3 { font-size: 1.05rem; margin: 0; }
.card { background: var(--paper); border: 1px solid var(--line); border-radius: 8px; padding: 1rem;
  margin-bottom: 1rem; }
.grid { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fill, minmax(16rem, 1fr)); }
.panels { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fit, minmax(min(100%, 24rem), 1fr));
  align-items: start; }
.stats { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fit, minmax(10rem, 1fr)); margin-bottom: 1rem; }
.stat { background: var(--paper); border: 1px solid var(--line); border-radius: 8px; padding: 0.75rem 1rem; }
.stat dt { color: var(--muted); font-size: 0.9rem; }
.stat dd { margin: 0; font-size: 1.6rem; font-weight: 700; }
.muted { color: var(--muted); }
.badge { display: inline-block; padding: 0.05rem 0.5rem; border-radius: 999px; font-size: 0.8rem; font-weight: 600;
  border: 1px solid currentColor; }
.badge.ok { color: var(--ok); } .badge.warn { color: var(--warn); } .badge.danger { color: var(--danger); }
.verb { font-weight: 700; font-size: 0.8rem; padding: 0.1rem 0.4rem; border-radius: 4px; background: var(--wash);
  border: 1px solid var(--line); }
.button, button { font: inherit; cursor: pointer; display: inline-block; padding: 0.45rem 0.9rem; border-radius: 6px;
  border: 1px solid var(--accent); background: var(--accent); color: var(--accent-ink); text-decoration: none;
  line-height: 1.3; }
.button.secondary, button.secondary { background: var(--paper); color: var(--accent); }
.button.danger, button.danger { background: var(--danger); border-color: var(--danger); color: #fff; }
.actions { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; }
.actions form { margin: 0; }
label { font-weight: 600; display: block; margin-bottom: 0.25rem; }
fieldset { border: 1px solid var(--line); border-radius: 6px; margin: 0 0 1rem; padding: 0.5rem 0.75rem 0.75rem; }
legend { font-weight: 600; padding: 0 0.25rem; }
.check label { font-weight: 400; display: inline; }
input[type="text"], input[type="password"], input[type="number"], input[type="search"], select {
  font: inherit; width: 100%; max-width: 32rem; padding: 0.45rem 0.6rem; border: 1px solid #6b7280; border-radius: 6px;
  background: var(--paper); color: var(--ink); }
.field { margin-bottom: 1rem; }
.hint { color: var(--muted); font-size: 0.9rem; margin: 0.25rem 0 0; }
.checks { display: grid; gap: 0.25rem 1rem; grid-template-columns: repeat(auto-fill, minmax(13rem, 1fr)); }
.error { color: var(--danger); font-weight: 600; }
.notice { border-left: 4px solid var(--ok); background: #f0fdf4; padding: 0.6rem 1rem; margin-bottom: 1rem; }
.alert { border-left: 4px solid var(--danger); background: #fef2f2; padding: 0.6rem 1rem; margin-bottom: 1rem; }
progress.bar { appearance: none; -webkit-appearance: none; display: block; width: 100%; height: 0.7rem;
  margin: 0.35rem 0;
  border: 1px solid #6b7280; border-radius: 999px; background: #e5e7eb; overflow: hidden; color: var(--accent); }
progress.bar::-webkit-progress-bar { background: #e5e7eb; }
progress.bar::-webkit-progress-value { background: var(--accent); }
progress.bar::-moz-progress-bar { background: var(--accent); }
progress.bar.warn { color: var(--warn-bar); }
progress.bar.warn::-webkit-progress-value { background: var(--warn-bar); }
progress.bar.warn::-moz-progress-bar { background: var(--warn-bar); }
progress.bar.danger { color: var(--danger); }
progress.bar.danger::-webkit-progress-value { background: var(--danger); }
progress.bar.danger::-moz-progress-bar { background: var(--danger); }
.plain-list { list-style: none; padding: 0; }
.card > h2:first-child, .card > header h2 { margin-top: 0; }
.grow { flex: 1; }
caption { text-align: left; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 0.4rem 0.6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 0.85rem; color: var(--muted); }
pre { background: var(--ink); color: #f9fafb; padding: 0.75rem; border-radius: 6px; overflow-x: auto;
  white-space: pre-wrap; word-break: break-all; }
.tool header { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: baseline; margin-bottom: 0.25rem; }
.tool p { margin: 0.25rem 0 0.5rem; }
.facts { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; margin: 0 0 0.5rem; font-size: 0.9rem; }
.facts dt { color: var(--muted); display: inline; } .facts dd { display: inline; margin: 0 0 0 0.25rem; }
details.entry { background: var(--paper); border: 1px solid var(--line); border-radius: 6px; margin-bottom: 0.4rem; }
details.entry > summary { cursor: pointer; padding: 0.5rem 0.75rem; display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; }
details.entry > dl { margin: 0; padding: 0 0.75rem 0.75rem; display: grid; grid-template-columns: max-content 1fr;
  gap: 0.15rem 1rem; }
details.entry dt { color: var(--muted); } details.entry dd { margin: 0; word-break: break-all; }
.filters { display: grid; gap: 0.75rem; grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr)); align-items: end; }
.filters .field { margin: 0; }
.pager { display: flex; gap: 1rem; margin-top: 1rem; }
.sign-in { max-width: 26rem; margin: 4rem auto; }
@media (max-width: 640px) {
  .top form { margin-left: 0; }
  main { padding: 1rem 0.75rem 2rem; }
  h1 { font-size: 1.35rem; }
  .stat dd { font-size: 1.3rem; }
  details.entry > dl { grid-template-columns: 1fr; }
}
/* Usage charts: server-rendered SVG bars; the table beside each carries the same figures. */
figure.card { margin: 0 0 1rem; }
.chart { display: block; width: 100%; height: auto; max-height: 14rem; }
.chart .bar { fill: var(--accent); }
.chart .bar.errors { fill: var(--danger); }
.chart .axis { stroke: var(--line); }
.chart text { fill: var(--muted); font-size: 11px; }
.ranges { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: end; margin-bottom: 1rem; }
.ranges a[aria-current="true"] { font-weight: 700; }
.ranges input[type="datetime-local"] { font: inherit; padding: 0.3rem; }
details.figures summary { cursor: pointer; color: var(--muted); }
.table-scroll { overflow-x: auto; }
`;

/**
 * Progressive enhancement only: every page works without it. Copy buttons
 * (hidden until this runs) and the tool library's live filter, which keeps
 * the `?q=` of the no-JS form in the address bar.
 */
const SCRIPT = String.raw`
(() => {
  'use strict';
  for (const button of document.querySelectorAll('button[data-copy]')) {
    const source = document.getElementById(button.dataset.copy);
    const status = document.getElementById(button.dataset.copy + '-status');
    if (!source) continue;
    button.hidden = false;
    button.addEventListener('click', async () => {
      let copied = false;
      try {
        await navigator.clipboard.writeText(source.textContent);
        copied = true;
      } catch {
        const range = document.createRange();
        range.selectNodeContents(source);
        getSelection().removeAllRanges();
        getSelection().addRange(range);
        copied = document.execCommand('copy');
      }
      if (status)
        status.textContent = copied
          ? 'Copied to the clipboard.'
          : 'Could not copy: the text is selected, copy it with your keyboard.';
    });
  }

  const filter = document.querySelector('input[data-filter]');
  if (filter) {
    const tools = [...document.querySelectorAll('[data-tool]')];
    const groups = [...document.querySelectorAll('[data-category]')];
    const count = document.getElementById('tool-count');
    const apply = () => {
      const needle = filter.value.trim().toLowerCase();
      let shown = 0;
      for (const tool of tools) {
        tool.hidden = needle !== '' && !tool.dataset.search.includes(needle);
        if (!tool.hidden) shown += 1;
      }
      for (const group of groups) group.hidden = !group.querySelector('[data-tool]:not([hidden])');
      if (count) count.textContent = shown + (shown === 1 ? ' tool' : ' tools');
      const url = new URL(location.href);
      if (needle) url.searchParams.set('q', filter.value.trim()); else url.searchParams.delete('q');
      history.replaceState(null, '', url);
    };
    filter.addEventListener('input', apply);
    filter.form?.addEventListener('submit', (event) => { event.preventDefault(); apply(); });
  }
})();
`;

export interface Asset {
  path: string;
  body: string;
  contentType: string;
}

function asset(name: string, extension: string, body: string, contentType: string): Asset {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { path: `/assets/${name}.${hash}.${extension}`, body, contentType };
}

export const STYLESHEET = asset('dashboard', 'css', STYLES, 'text/css; charset=utf-8');
export const ENHANCEMENT_SCRIPT = asset('dashboard', 'js', SCRIPT, 'text/javascript; charset=utf-8');
