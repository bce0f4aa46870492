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

/** Starts it; resolves once it accepts connections. `extraArgs` for cluster nodes. */
export async function startRedis({ port: wanted, extraArgs = [] } = {}) {
  const port = wanted ?? (await freePort());
  const version = /v=(\S+)/.exec(spawnSync('redis-server', ['--version'], { encoding: 'utf8' }).stdout)?.[1];
  const argv = ['redis-server', '--port', String(port), '--bind', '127.0.0.1'];
  argv.push('--save', '', '--appendonly', 'no', '--daemonize', 'no', ...extraArgs);
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
    port,
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

/**
 * A throwaway three-master Redis Cluster (no replicas) on 127.0.0.1, like the tests' one
 * (test/helpers/redis-cluster.ts): each node in its own temp dir (nodes.conf), a bus port of
 * its own, joined by `redis-cli --cluster create`; resolves once every node says cluster_state:ok.
 */
export async function startRedisCluster(masters = 3) {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'crawld-bench-cluster-'));
  const servers = [];
  const stopAll = async () => {
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < masters; i++) {
      const port = await freePort();
      const bus = await freePort();
      servers.push(
        await startRedis({
          port,
          // Each node's own nodes file in the shared dir.
          extraArgs: ['--cluster-enabled', 'yes', '--cluster-port', String(bus), '--dir', dir].concat([
            '--cluster-config-file',
            `nodes-${port}.conf`,
          ]),
        }),
      );
    }
    const nodes = servers.map((s) => `127.0.0.1:${s.port}`);
    const created = spawnSync(
      'redis-cli',
      ['--cluster', 'create', ...nodes, '--cluster-replicas', '0', '--cluster-yes'],
      {
        encoding: 'utf8',
      },
    );
    if (created.status !== 0)
      throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
    for (const s of servers) {
      for (let i = 0; ; i++) {
        const info = spawnSync('redis-cli', ['-p', String(s.port), 'cluster', 'info'], {
          encoding: 'utf8',
        }).stdout;
        if (/cluster_state:ok/.test(info)) break;
        if (i > 200) throw new Error(`cluster node ${s.port} not ok: ${info}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    return {
      url: `redis-cluster://${nodes.join(',')}`,
      nodes,
      flush: () => {
        for (const s of servers) spawnSync('redis-cli', ['-p', String(s.port), 'flushall']);
      },
      kill: () => {
        for (const s of servers) s.kill();
      },
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
