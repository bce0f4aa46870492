/**
 * Several real `crawld run` processes on one Redis frontier, for the cluster e2e tests:
 * per-daemon config files and data dirs, and the union of their results files.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { started } from './cleanup.js';
import { type CliProcess, startCli, startSiteCli, tempDir } from './cli.js';
import { type RedisClusterServer, type StartClusterOptions, startRedisCluster } from './redis-cluster.js';
import { type RedisServer, type StartRedisOptions, startRedis } from './redis-server.js';
import { pause } from './wait.js';

export interface ClusterOptions {
  /** The shared frontier: a redis-server's URL, or the nodes of a Redis Cluster. */
  readonly redisUrl?: string;
  readonly redisNodes?: readonly string[];
  /** Isolates one scenario's keys from another's on the same Redis. */
  readonly keyPrefix: string;
  readonly origin: string;
  readonly daemons: number;
  readonly leaseMs?: number;
  /** Extra top-level config sections merged into each daemon's config. */
  readonly extra?: (i: number) => Record<string, unknown>;
  /** Passed to `crawld run` after --config. @default ['--once'] */
  readonly args?: readonly string[];
  /** The first daemon's number (ids d0, d1, ...): a daemon started later keeps its own. @default 0 */
  readonly firstIndex?: number;
}

export interface Member {
  readonly id: string;
  readonly dir: string;
  readonly results: string;
  readonly proc: CliProcess;
}

export function startCluster(o: ClusterOptions): Member[] {
  const root = tempDir('crawld-cluster-');
  return Array.from({ length: o.daemons }, (_, i) => startMember(o, root, (o.firstIndex ?? 0) + i));
}

/** The same, the daemons started `gapMs` apart (a daemon that joins a crawl under way). */
export async function startClusterStaggered(
  o: ClusterOptions,
  gapMs: number,
  onStarted: (m: Member) => void,
): Promise<void> {
  const root = tempDir('crawld-cluster-');
  for (let i = 0; i < o.daemons; i++) {
    if (i > 0) await pause(gapMs, 'the daemons start gapMs apart: a later one joins a crawl under way');
    onStarted(startMember(o, root, i));
  }
}

function startMember(o: ClusterOptions, root: string, i: number): Member {
  const id = `d${i}`;
  const dir = join(root, id);
  const extra = o.extra?.(i) ?? {};
  const config = {
    dataDir: dir,
    instanceId: id,
    log: { level: 'info' },
    frontier: {
      ...(o.redisNodes
        ? { kind: 'redis-cluster', nodes: o.redisNodes }
        : { kind: 'redis', url: `${o.redisUrl}/0` }),
      keyPrefix: o.keyPrefix,
      leaseMs: o.leaseMs ?? 30_000,
    },
    ...extra,
    fetch: {
      allowAddresses: [new URL(o.origin).host],
      totalTimeoutMs: 2_000,
      ...((extra.fetch as object | undefined) ?? {}),
    },
    jobs: [{ id: 'site', seeds: [`${o.origin}/`] }],
  };
  const file = join(root, `${id}.json`);
  writeFileSync(file, JSON.stringify(config));
  const proc = startCli(['run', '--config', file, '--no-progress', ...(o.args ?? ['--once'])]);
  return { id, dir, results: join(dir, 'results.jsonl'), proc };
}

/** URLs of a results file; a torn last line (SIGKILL mid-write) is not a record. */
export function resultUrls(path: string): string[] {
  if (!existsSync(path)) return [];
  const out: string[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line === '') continue;
    try {
      out.push(String((JSON.parse(line) as { url: string }).url));
    } catch {
      // torn tail
    }
  }
  return out;
}

/**
 * `crawld crawl URLS --once --allow-private-networks --data-dir DIR --no-progress`, then `more`
 * (e.g. `--frontier URL`): a one-shot crawl of the demo site as a user runs it.
 */
export function crawlOnceArgs(
  urls: readonly string[],
  dataDir: string,
  more: readonly string[] = [],
): string[] {
  return [
    'crawl',
    ...urls,
    '--once',
    '--allow-private-networks',
    '--data-dir',
    dataDir,
    '--no-progress',
    ...more,
  ];
}

/** Per URL, how many records the files hold together. */
export function countByUrl(files: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const f of files) for (const u of resultUrls(f)) counts.set(u, (counts.get(u) ?? 0) + 1);
  return counts;
}

/** The demo site's page URLs: '/' and '/p/1' .. '/p/(pages-1)' ('/p/0' redirects to '/'). */
export function sitePages(origin: string, pages: number): string[] {
  return [`${origin}/`, ...Array.from({ length: pages - 1 }, (_, i) => `${origin}/p/${i + 1}`)];
}

export async function stopAll(members: readonly Member[]): Promise<void> {
  for (const m of members) {
    if (m.proc.child.exitCode === null && m.proc.child.signalCode === null) m.proc.child.kill('SIGKILL');
  }
  await Promise.all(members.map((m) => m.proc.exited));
}

/** What every cluster test file runs against: one redis-server and the demo site. */
export interface ClusterFixture {
  readonly redis: RedisServer;
  /** Set instead of redis when the fixture was asked for a Redis Cluster. */
  readonly redisCluster: RedisClusterServer;
  readonly origin: string;
  /** Daemons a test started; whatever is left of them is killed after all tests. */
  members: Member[];
}

/**
 * Registers beforeAll/afterAll hooks that start a real redis-server and `crawld site`
 * (`pages` pages, `latencyMs` of latency), and stop them, and any members, after all tests.
 * Read the fields inside tests or hooks: they are set once beforeAll has run.
 */
export function useClusterFixture(site: {
  readonly pages: number;
  readonly latencyMs?: number;
  /** The site serves this many requests at a time, the rest queue (`crawld site --capacity`). */
  readonly capacity?: number;
  readonly redis?: StartRedisOptions;
  /** A three-master Redis Cluster instead of one redis-server. */
  readonly redisCluster?: StartClusterOptions;
}): ClusterFixture {
  let redis: RedisServer | undefined;
  let redisCluster: RedisClusterServer | undefined;
  let siteProc: CliProcess | undefined;
  let origin: string | undefined;
  const fixture: ClusterFixture = {
    get redis() {
      return started(redis, 'cluster fixture: redis-server not started (used outside a test?)');
    },
    get redisCluster() {
      return started(redisCluster, 'cluster fixture: redis cluster not started (redisCluster option?)');
    },
    get origin() {
      return started(origin, 'cluster fixture: demo site not started (used outside a test?)');
    },
    members: [],
  };
  beforeAll(async () => {
    if (site.redisCluster) redisCluster = await startRedisCluster(site.redisCluster);
    else redis = await startRedis(site.redis);
    const args = ['--pages', String(site.pages)];
    if (site.latencyMs !== undefined) args.push('--latency-ms', String(site.latencyMs));
    if (site.capacity !== undefined) args.push('--capacity', String(site.capacity));
    ({ proc: siteProc, origin } = await startSiteCli(args));
  }, 60_000);
  afterAll(async () => {
    await stopAll(fixture.members);
    siteProc?.child.kill('SIGTERM');
    await siteProc?.exited;
    await redis?.stop();
    await redisCluster?.stop();
  });
  return fixture;
}
