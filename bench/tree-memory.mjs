// Memory of a whole process tree (a crawler and the browsers it starts), sampled from /proc:
// the sum of RSS over the tree (shared pages counted once per process, as `ps` adds them up) and
// the sum of PSS (shared pages split between the processes that map them: what the tree really
// costs). Both peaks are reported; compare like with like.
import { spawn } from 'node:child_process';
import { createWriteStream, readdirSync, readFileSync } from 'node:fs';
import { pinned } from './demo-site.mjs';

function children() {
  const byParent = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Field 4 (ppid) follows the command in parentheses, which may contain spaces.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = byParent.get(ppid) ?? [];
      list.push(Number(name));
      byParent.set(ppid, list);
    } catch {
      // The process ended while we looked.
    }
  }
  return byParent;
}

function tree(root) {
  const byParent = children();
  const out = [root];
  for (let i = 0; i < out.length; i++) out.push(...(byParent.get(out[i]) ?? []));
  return out;
}

function kib(text, key) {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

/** What a process of the tree is: node, the browser, or Chromium's --type (renderer, gpu-process, ...). */
function kindOf(pid) {
  try {
    // Split on spaces too: Chromium rewrites its process title into one string.
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/);
    const type = argv.find((a) => a.startsWith('--type='));
    if (type) return argv.includes('--top-chrome-webui') ? 'webui-renderer' : type.slice(7);
    return /chrom/.test(argv[0]) ? 'browser' : /node/.test(argv[0]) ? 'node' : argv[0].split('/').pop();
  } catch {
    return 'gone';
  }
}

/**
 * Samples the tree of `pid` every `everyMs` until stop(), which returns the peaks in bytes and,
 * at the peak of the PSS sum, what it was made of: `breakdown` maps a process kind to
 * { n, rss, pss } (bytes).
 */
export function watchTreeMemory(pid, everyMs = 200) {
  let peakRss = 0;
  let peakPss = 0;
  let peakProcesses = 0;
  let breakdown = {};
  const sample = () => {
    let rss = 0;
    let pss = 0;
    const pids = tree(pid);
    const parts = {};
    for (const p of pids) {
      try {
        const r = kib(readFileSync(`/proc/${p}/status`, 'utf8'), 'VmRSS');
        const q = kib(readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'), 'Pss');
        rss += r;
        pss += q;
        const kind = kindOf(p);
        parts[kind] ??= { n: 0, rss: 0, pss: 0 };
        const part = parts[kind];
        part.n++;
        part.rss += r * 1024;
        part.pss += q * 1024;
      } catch {
        // Gone, or not ours to read.
      }
    }
    peakRss = Math.max(peakRss, rss * 1024);
    if (pss * 1024 > peakPss) breakdown = parts;
    peakPss = Math.max(peakPss, pss * 1024);
    peakProcesses = Math.max(peakProcesses, pids.length);
  };
  const timer = setInterval(sample, everyMs);
  sample();
  return {
    stop() {
      clearInterval(timer);
      return { peakRss, peakPss, peakProcesses, breakdown };
    },
  };
}

/**
 * Runs argv on core 1 (demo-site.mjs's pinning), timed spawn to exit, with the peak memory of
 * its process tree: { secs, code, out, err, ...watchTreeMemory's peaks }. `out` and `err` keep
 * their last `keepChars` characters; `logFile`, if given, gets all of stdout.
 */
export function timed(argv, { env = {}, logFile, keepChars = 20_000 } = {}) {
  const full = pinned(1, argv);
  const log = logFile ? createWriteStream(logFile) : undefined;
  return new Promise((res, rej) => {
    const t0 = performance.now();
    const child = spawn(full[0], full.slice(1), {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    const mem = watchTreeMemory(child.pid);
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out = (out + d).slice(-keepChars);
      log?.write(d);
    });
    child.stderr.on('data', (d) => {
      err = (err + d).slice(-keepChars);
    });
    child.once('error', rej);
    child.once('close', (code) => {
      const m = mem.stop();
      log?.end();
      res({ secs: (performance.now() - t0) / 1000, code, out, err, ...m });
    });
  });
}
