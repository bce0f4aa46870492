// Memory of a whole process tree (a crawler and the browsers it starts), sampled from /proc:
// the sum of RSS over the tree (shared pages counted once per process, as `ps` adds them up) and
// the sum of PSS (shared pages split between the processes that map them: what the tree really
// costs). Both peaks are reported; compare like with like.
import { readdirSync, readFileSync } from 'node:fs';

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
