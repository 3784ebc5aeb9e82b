#!/usr/bin/env node
// Summarises a V8 .cpuprofile (from `node --cpu-prof --cpu-prof-dir=DIR …`): top functions by
// self time, self time per file/package, and inclusive time of the functions that match a filter.
//
//   node bench/cpuprofile-top.js PROFILE.cpuprofile [--top 25] [--inclusive REGEX] [--last-ms MS] [--first-ms MS]
//
// --last-ms keeps only the samples of the profile's last MS ms: a run's post stage is its end, so
// `--last-ms` with the summary's post `ms` reads the post stage alone. --first-ms keeps only its
// first MS ms (start-up, extract, stage and upsert, before the post stage).
// Paths are shortened: node_modules/<pkg>/… → <pkg>:…, the repo's dist/ → dist/….

import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a) && args[args.indexOf(a) - 1] !== '--inclusive');
if (!file) {
  process.stderr.write('usage: node bench/cpuprofile-top.js PROFILE.cpuprofile [--top N] [--inclusive REGEX] [--last-ms MS] [--first-ms MS]\n');
  process.exit(2);
}
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const TOP = Number(opt('--top', 25));
const INCLUSIVE = new RegExp(opt('--inclusive', '^(runPipeline|runStages|stageRecords|batches|readCsvRows|groupRows|invoices|counted|postgresBulkLoad|chunks|upsertStaged|fileRunKey|canonicalValue|rowHash|csvLine|safeParse|toInstant|main|loadPipeline|importProjectModule|openSession|createLogger|assertMigrated|findJobRun)$'));

const profile = JSON.parse(readFileSync(file, 'utf8'));
const lastMs = Number(opt('--last-ms', 0));
if (lastMs > 0) {
  // Sample i is taken at startTime + the sum of timeDeltas[0..i] (µs).
  const cutoff = profile.endTime - lastMs * 1000;
  let at = profile.startTime;
  const first = profile.timeDeltas.findIndex((dt) => (at += dt) >= cutoff);
  profile.samples = profile.samples.slice(Math.max(first, 0));
  profile.timeDeltas = profile.timeDeltas.slice(Math.max(first, 0));
}
const firstMs = Number(opt('--first-ms', 0));
if (firstMs > 0) {
  const cutoff = profile.startTime + firstMs * 1000;
  let at = profile.startTime;
  const end = profile.timeDeltas.findIndex((dt) => (at += dt) > cutoff);
  if (end >= 0) {
    profile.samples = profile.samples.slice(0, end);
    profile.timeDeltas = profile.timeDeltas.slice(0, end);
  }
}
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const selfUs = new Map();
let total = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  selfUs.set(id, (selfUs.get(id) ?? 0) + dt);
  total += dt;
});

function shortUrl(url) {
  if (!url) return '(native)';
  const u = url.replace(/^file:\/\//, '');
  const nm = u.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = u.slice(nm + '/node_modules/'.length).split('/');
    const pkgLen = rest[0].startsWith('@') ? 2 : 1;
    return `${rest.slice(0, pkgLen).join('/')}:${rest.slice(pkgLen).join('/')}`;
  }
  const dist = u.indexOf('/dist/');
  if (dist >= 0) return u.slice(dist + 1);
  return u.startsWith('node:') ? u : u.replace(/^.*\/(?=[^/]+\/[^/]+$)/, '');
}
const pkgOf = (url) => {
  const s = shortUrl(url);
  if (s.startsWith('dist/')) return s;
  if (s.includes(':') && !s.startsWith('node:')) return s.split(':')[0];
  return s.startsWith('node:') ? 'node: internals' : s;
};
const fnKey = (cf) => `${cf.functionName || '(anonymous)'}  ${shortUrl(cf.url)}${cf.url ? `:${cf.lineNumber + 1}` : ''}`;

const bySelf = new Map();
const byPkg = new Map();
for (const [id, us] of selfUs) {
  const cf = byId.get(id).callFrame;
  bySelf.set(fnKey(cf), (bySelf.get(fnKey(cf)) ?? 0) + us);
  byPkg.set(pkgOf(cf.url), (byPkg.get(pkgOf(cf.url)) ?? 0) + us);
}

// Inclusive: a sample counts once for each distinct matching function on its stack.
const inclusive = new Map();
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const cf = byId.get(cur).callFrame;
    if (INCLUSIVE.test(cf.functionName)) seen.add(fnKey(cf));
  }
  for (const k of seen) inclusive.set(k, (inclusive.get(k) ?? 0) + dt);
});

const pct = (us) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
const ms = (us) => `${(us / 1000).toFixed(0).padStart(7)} ms`;
const print = (title, map, n) => {
  process.stdout.write(`\n${title}\n`);
  for (const [k, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, n)) process.stdout.write(`${ms(us)} ${pct(us)}  ${k}\n`);
};
process.stdout.write(`${file}: ${(total / 1e6).toFixed(2)} s sampled, ${profile.samples.length} samples\n`);
print(`top ${TOP} functions by self time`, bySelf, TOP);
print('self time by package / file', byPkg, TOP);
print(`inclusive time of functions matching ${INCLUSIVE}`, inclusive, TOP);
