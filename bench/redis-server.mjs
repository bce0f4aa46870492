// A throwaway redis-server for the benchmarks: a free 127.0.0.1 port, no persistence, pinned to
// core 0 (away from the crawler on core 1) when taskset exists. Never a remote Redis.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus } from 'node:os';

/** True when redis-server is on PATH. */
export function haveRedisServer() {
  return spawnSync('redis-server', ['--version']).status === 0;
}

async function freePort() {
  const srv = createServer();
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

/** Starts it; resolves once it accepts connections. */
export async function startRedis() {
  const port = await freePort();
  const version = /v=(\S+)/.exec(spawnSync('redis-server', ['--version'], { encoding: 'utf8' }).stdout)?.[1];
  const argv = ['redis-server', '--port', String(port), '--bind', '127.0.0.1'];
  argv.push('--save', '', '--appendonly', 'no', '--daemonize', 'no');
  const pin = cpus().length >= 2 && spawnSync('taskset', ['-c', '0', 'true']).status === 0;
  const cmd = pin ? ['taskset', '-c', '0', ...argv] : argv;
  const proc = spawn(cmd[0], cmd.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
      if (/Ready to accept connections/.test(out)) resolve();
    });
    proc.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${out.slice(-2000)}`)));
  });
  proc.stdout.resume();
  return {
    url: `redis://127.0.0.1:${port}`,
    version,
    peakRssBytes: () => {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${proc.pid}/status`, 'utf8'));
      return m ? Number(m[1]) * 1024 : Number.NaN;
    },
    /** For exit handlers: no wait. */
    kill: () => proc.kill('SIGTERM'),
    stop: () =>
      new Promise((r) => {
        proc.removeAllListeners('exit');
        proc.once('exit', r);
        proc.kill('SIGTERM');
      }),
  };
}
