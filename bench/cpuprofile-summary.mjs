// Summarises a V8 .cpuprofile (from `node --cpu-prof`): self time by function and by
// file/package, and the share of GC, so a hot path shows up without opening DevTools.
// Usage: node bench/cpuprofile-summary.mjs FILE.cpuprofile [--top 30]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '30' } },
});
const file = positionals[0];
if (!file) {
  console.error('usage: node bench/cpuprofile-summary.mjs FILE.cpuprofile [--top N]');
  process.exit(2);
}
const top = Number(values.top);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));

// Sample time deltas are in microseconds; each sample is attributed to one node (self time).
const self = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const total = [...self.values()].reduce((a, b) => a + b, 0);

/** Folds a script URL into a package name or a project-relative path. */
function where(url) {
  if (!url) return '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 13).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return url;
  const i = url.indexOf('/dist/');
  return i >= 0 ? url.slice(i + 1) : url;
}

const fn = new Map();
const pkg = new Map();
for (const [id, us] of self) {
  const { callFrame: cf } = byId.get(id);
  const name = cf.functionName || '(anonymous)';
  const loc = where(cf.url);
  const key = `${name}  ${loc}${cf.url ? `:${cf.lineNumber + 1}` : ''}`;
  fn.set(key, (fn.get(key) ?? 0) + us);
  const group = cf.url ? loc : name;
  pkg.set(group, (pkg.get(group) ?? 0) + us);
}

const pct = (us) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
const print = (title, m) => {
  console.log(`\n${title}`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${pct(us)} ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`);
  }
};
console.log(`${file}: ${(total / 1e6).toFixed(2)} s sampled`);
print('self time by package / file (and native groups):', pkg);
print('self time by function:', fn);
