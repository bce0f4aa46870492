#!/usr/bin/env node
// A real published site, served by nginx on 127.0.0.1, crawled by `crawld crawl --once` with
// the cookie jar on (the default) and off (`jobs[].cookies: false`), alternating:
//
//   apt-get install nginx-light postgresql-doc-15       # or python3-doc, rust-doc
//   npm run build && node bench/real-site.mjs [--root /usr/share/doc/postgresql-doc-15/html] [--runs 2]
//
// Prints per run the pages recorded, their distinct titles and pages/s, then whether both
// settings found the same pages (URL, status and title of every record) and the ratio of their
// median pages/s (jar on / jar off). Debian's documentation packages are real static sites
// (1k to 30k pages), written by the projects' own doc toolchains.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { haveNginx, startNginx } from './nginx-site.mjs';

const root = resolve(import.meta.dirname, '..');
const { values: opt } = parseArgs({
  options: {
    root: { type: 'string', default: '/usr/share/doc/postgresql-doc-15/html' },
    runs: { type: 'string', default: '2' },
  },
});
const RUNS = Number(opt.runs);
const CLI = join(root, 'dist', 'crawld.mjs');

if (!haveNginx()) {
  console.error('nginx missing: apt-get install nginx-light (and a doc package such as postgresql-doc-15)');
  process.exit(2);
}

function crawl(origin, jar) {
  const dir = mkdtempSync(join(tmpdir(), 'crawld-real-'));
  // The same config file both ways, but for the jar.
  const config = join(dir, 'crawld.json');
  writeFileSync(config, JSON.stringify({ jobs: [{ id: 'real', seeds: [`${origin}/`], cookies: jar }] }));
  const args = ['crawl', `${origin}/`, '--once', '--allow-private-networks', '--data-dir', join(dir, 'data')];
  args.push('--config', config);
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [CLI, ...args, '--no-progress'], { encoding: 'utf8' });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`crawl exited ${r.status}: ${r.stderr}`);
  const records = readFileSync(join(dir, 'data', 'results.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  rmSync(dir, { recursive: true, force: true });
  const pages = new Map(records.map((rec) => [rec.key, `${rec.status} ${rec.fields?.title ?? ''}`]));
  return { pages, titles: new Set(records.map((rec) => rec.fields?.title)).size, seconds };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const site = await startNginx(opt.root);
try {
  const rates = { on: [], off: [] };
  let reference;
  let same = true;
  for (let i = 0; i < RUNS; i++) {
    for (const jar of i % 2 === 0 ? [true, false] : [false, true]) {
      const r = crawl(site.origin, jar);
      const rate = r.pages.size / r.seconds;
      rates[jar ? 'on' : 'off'].push(rate);
      console.log(
        `jar ${jar ? 'on ' : 'off'}: ${r.pages.size} pages, ${r.titles} distinct titles, ${r.seconds.toFixed(2)} s, ${rate.toFixed(0)} pages/s`,
      );
      if (!reference) reference = r.pages;
      else {
        const differ = [...new Set([...reference.keys(), ...r.pages.keys()])].filter(
          (k) => reference.get(k) !== r.pages.get(k),
        );
        if (differ.length > 0) {
          same = false;
          console.log(
            `  differs from the first run on ${differ.length} pages, e.g. ${differ.slice(0, 3).join(' ')}`,
          );
        }
      }
    }
  }
  console.log(`${opt.root}: same pages, statuses and titles in every run: ${same ? 'yes' : 'NO'}`);
  console.log(
    `pages/s jar on / jar off (ratio of medians): ${(median(rates.on) / median(rates.off)).toFixed(2)}`,
  );
  if (!same) process.exitCode = 1;
} finally {
  site.stop();
}
