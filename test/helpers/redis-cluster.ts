/**
 * Starts a throwaway Redis Cluster for a test file: three `redis-server --cluster-enabled yes`
 * masters on free ports of 127.0.0.1, joined with `redis-cli --cluster create` (no replicas),
 * ready once every node reports cluster_state:ok. Missing binaries are a failure, never a skip.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { Redis } from 'ioredis';
import { type RedisServer, requireRedisServer, startRedis } from './redis-server.js';
import { waitFor } from './wait.js';

export interface RedisClusterServer {
  /** "127.0.0.1:port" of every master, in start order. */
  readonly nodes: readonly string[];
  /** redis-cluster://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3 */
  readonly url: string;
  readonly servers: readonly RedisServer[];
  /** Every key of every master (KEYS *: test-sized data only), per node. */
  keysPerNode(): Promise<string[][]>;
  /** FLUSHALL on every master. */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

export interface StartClusterOptions {
  readonly masters?: number;
  /** appendonly yes, so a restarted node keeps its data. @default false */
  readonly persistent?: boolean;
}

export function requireRedisCli(): void {
  const r = spawnSync('redis-cli', ['--version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0)
    throw new Error(
      `redis-cli is not installed (${r.error?.message ?? `exit ${r.status}`}): ` +
        'run scripts/setup-test-env.sh, which installs the Debian package redis-tools',
    );
}

export async function startRedisCluster(options: StartClusterOptions = {}): Promise<RedisClusterServer> {
  requireRedisServer();
  requireRedisCli();
  const servers: RedisServer[] = [];
  try {
    for (let i = 0; i < (options.masters ?? 3); i++) servers.push(await startNode(options));
    const nodes = servers.map((s) => `127.0.0.1:${s.port}`);
    await run('redis-cli', ['--cluster', 'create', ...nodes, '--cluster-replicas', '0', '--cluster-yes']);
    await waitClusterOk(servers.map((s) => s.port));
    const clients = () => servers.map((s) => new Redis(s.port, '127.0.0.1', { lazyConnect: false }));
    const onEach = async <T>(fn: (c: Redis) => Promise<T>): Promise<T[]> => {
      const cs = clients();
      try {
        return await Promise.all(cs.map(fn));
      } finally {
        for (const c of cs) c.disconnect();
      }
    };
    return {
      nodes,
      url: `redis-cluster://${nodes.join(',')}`,
      servers,
      keysPerNode: () => onEach((c) => c.keys('*')),
      flush: async () => {
        await onEach((c) => c.flushall());
      },
      stop: async () => {
        await Promise.all(servers.map((s) => s.stop()));
      },
    };
  } catch (err) {
    await Promise.all(servers.map((s) => s.stop()));
    throw err;
  }
}

/**
 * One cluster node. Its bus port is a free port of its own (`cluster-port`), not the default
 * port + 10000, which can be taken or beyond 65535 for an ephemeral port; a port taken between
 * picking it and binding it is retried with fresh ones.
 */
async function startNode(options: StartClusterOptions): Promise<RedisServer> {
  for (let attempt = 1; ; attempt++) {
    // Both picked while both are held: two picks in a row may return the same port.
    const [port, busPort] = await freePorts(2);
    try {
      return await startRedis({
        ...(options.persistent ? { persistent: true } : {}),
        port: port!,
        // nodes.conf lives in the server's private --dir.
        extraArgs: [
          '--cluster-enabled',
          'yes',
          '--cluster-node-timeout',
          '2000',
          '--cluster-port',
          String(busPort),
        ],
      });
    } catch (err) {
      if (attempt >= 3 || !/Address already in use/.test(String(err))) throw err;
    }
  }
}

/** n distinct ports that were free a moment ago (listened on together, then released). */
async function freePorts(n: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const srv = createServer();
      servers.push(srv);
      await new Promise<void>((resolve, reject) => {
        srv.once('error', reject);
        srv.listen(0, '127.0.0.1', () => resolve());
      });
    }
    return servers.map((s) => {
      const addr = s.address();
      return typeof addr === 'object' && addr ? addr.port : 0;
    });
  } finally {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  }
}

/** CLUSTER INFO of the node on 127.0.0.1:port (throws if it does not answer). */
export async function clusterInfo(port: number): Promise<string> {
  const c = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await c.connect();
    return await c.cluster('INFO');
  } finally {
    c.disconnect();
  }
}

/** Every node answers cluster_state:ok and knows every slot. */
export async function waitClusterOk(ports: readonly number[], timeoutMs = 20_000): Promise<void> {
  let last = '';
  await waitFor(
    async () => {
      const infos = await Promise.all(ports.map((port) => clusterInfo(port).catch((err) => String(err))));
      last = infos.join('\n');
      return infos.every((i) => /cluster_state:ok/.test(i) && /cluster_slots_ok:16384/.test(i));
    },
    { what: 'the redis cluster ok', deadlineMs: timeoutMs, every: 100 },
  ).catch((err: Error) => {
    throw new Error(`${err.message}:\n${last}`);
  });
}

function run(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
    });
    child.stderr.on('data', (b: Buffer) => {
      out += b.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}:\n${out}`)),
    );
  });
}
