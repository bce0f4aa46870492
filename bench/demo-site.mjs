// The demo site (`crawld site`) as a child process for the benchmarks, pinned to core 0 when
// `taskset` exists and the machine has two cores or more (the crawlers go on core 1).
import { spawn, spawnSync } from 'node:child_process';
import { cpus } from 'node:os';

export const canPin = spawnSync('taskset', ['-c', '0', 'true']).status === 0 && cpus().length >= 2;

/** argv run on `core` when pinning is possible, else argv as it is. */
export const pinned = (core, argv) => (canPin ? ['taskset', '-c', String(core), ...argv] : argv);

/**
 * Starts `node CLI site --port 0 ...args` on core 0 (`--host 127.x.y.z` among args for a host of
 * its own); resolves with its origin and a stop() that resolves once it has exited.
 */
export async function startDemoSite(cli, args) {
  const argv = pinned(0, [process.execPath, cli, 'site', '--port', '0', ...args]);
  const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((res, rej) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /(http:\/\/127\.\d+\.\d+\.\d+:\d+)/.exec(out);
      if (m) res(m[1]);
    });
    child.once('exit', (code) => rej(new Error(`demo site exited with ${code}: ${out}`)));
  });
  child.stdout.resume();
  const stop = () =>
    new Promise((r) => {
      if (child.exitCode !== null || child.signalCode !== null) return r();
      child.once('exit', () => r());
      child.kill('SIGTERM');
    });
  return { url, stop };
}

/**
 * The benchmarks' crawld job on the demo shop, as YAML: the same extraction the peers do (title,
 * price, every link), robots.txt off. `render` adds a line under the job (the browser path).
 */
export function demoJobYaml(origin, { render } = {}) {
  return (
    'jobs:\n' +
    '  - id: bench\n' +
    `    seeds: ['${origin}/']\n` +
    '    robots: false\n' +
    (render ? `    render: ${render}\n` : '') +
    '    extract:\n' +
    '      fields:\n' +
    "        title: { selector: 'h1.title' }\n" +
    "        price: { selector: 'span.price', type: number }\n" +
    '      followAllLinks: { priority: 10 }\n'
  );
}
