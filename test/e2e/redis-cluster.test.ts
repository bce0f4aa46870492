/**
 * `crawld run` processes on a real three-master Redis Cluster (AOF on every node, the demo
 * site as its own process): the work is shared with nothing done twice, a SIGKILLed daemon's
 * leases come back after the visibility timeout, the master holding the site's host restarts
 * mid-crawl and nothing is lost, and /readyz is 503 while no node answers.
 */
import { describe, expect, it } from 'vitest';
import { countLines, freePort } from '../helpers/cli.js';
import { countByUrl, type Member, sitePages, startCluster, useClusterFixture } from '../helpers/cluster.js';
import { clusterInfo } from '../helpers/redis-cluster.js';
import { pause, waitFor } from '../helpers/wait.js';

const PAGES = 600;

const fx = useClusterFixture({ pages: PAGES, latencyMs: 20, redisCluster: { persistent: true } });

function duplicates(files: readonly string[]): string[] {
  return [...countByUrl(files)].filter(([, n]) => n > 1).map(([u]) => u);
}

function missing(files: readonly string[]): string[] {
  const counts = countByUrl(files);
  return sitePages(fx.origin, PAGES).filter((u) => !counts.has(u));
}

async function readyz(port: number): Promise<number> {
  return (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => ({ status: -1 }))).status;
}

const slow = { concurrency: { global: 8, maxPerHost: 4, initialPerHost: 4, adaptive: false } };

describe('daemons on one Redis Cluster frontier', () => {
  it('share one crawl: every page exactly once in the union, every daemon did part of it', async () => {
    fx.members = startCluster({
      redisNodes: fx.redisCluster.nodes,
      keyPrefix: 'share',
      origin: fx.origin,
      daemons: 3,
      extra: () => slow,
    });
    const codes = await Promise.all(fx.members.map((m) => m.proc.exited));
    expect(codes, fx.members.map((m) => m.proc.stderr() + m.proc.stdout()).join('\n')).toEqual([0, 0, 0]);
    const perDaemon = fx.members.map((m) => countLines(m.results));
    console.log(`redis cluster share: pages per daemon ${perDaemon.join(', ')}`);
    for (const n of perDaemon) expect(n).toBeGreaterThan(0);
    const files = fx.members.map((m) => m.results);
    expect(missing(files)).toEqual([]);
    expect(duplicates(files)).toEqual([]);
  }, 120_000);

  it('a daemon SIGKILLed mid-crawl: its leases expire and the others finish everything', async () => {
    const leaseMs = 3_000;
    fx.members = startCluster({
      redisNodes: fx.redisCluster.nodes,
      keyPrefix: 'kill',
      origin: fx.origin,
      daemons: 3,
      leaseMs,
      extra: () => slow,
    });
    const [victim, ...survivors] = fx.members as [Member, Member, Member];
    await waitFor(() => countLines(victim.results) >= 50, {
      what: '50 pages from the victim',
      deadlineMs: 60_000,
    });
    victim.proc.child.kill('SIGKILL');
    expect(await victim.proc.exited).toBe('SIGKILL');
    expect(await Promise.all(survivors.map((m) => m.proc.exited))).toEqual([0, 0]);
    expect(duplicates(survivors.map((m) => m.results)), 'duplicates among the survivors').toEqual([]);
    const files = fx.members.map((m) => m.results);
    expect(missing(files)).toEqual([]);
    // Only pages the victim wrote and died before acking can be twice: its in-flight bound.
    expect(duplicates(files).length).toBeLessThanOrEqual(8);
  }, 120_000);

  it('the master holding the host restarts (AOF) mid-crawl: the daemons stay up, nothing lost or repeated', async () => {
    const ports = [await freePort(), await freePort()];
    fx.members = startCluster({
      redisNodes: fx.redisCluster.nodes,
      keyPrefix: 'restart',
      origin: fx.origin,
      daemons: 2,
      leaseMs: 20_000,
      // One request at a time each (~50 pages/s against 20 ms pages): the 600 pages take
      // seconds, so the node restart falls mid-crawl whichever daemon started first.
      extra: (i) => ({
        http: { port: ports[i] },
        concurrency: { global: 1, maxPerHost: 1, initialPerHost: 1, adaptive: false },
      }),
    });
    await waitFor(() => fx.members.reduce((n, m) => n + countLines(m.results), 0) >= 40, {
      what: '40 pages in all',
      deadlineMs: 60_000,
    });
    // The site is one host, so one master holds its queues: that is the one to restart.
    const host = new URL(fx.origin).host;
    const perNode = await fx.redisCluster.keysPerNode();
    const owner = perNode.findIndex((keys) => keys.includes(`restart:{${host}}:t`));
    expect(owner).toBeGreaterThanOrEqual(0);
    const node = fx.redisCluster.servers[owner]!;
    await node.pause();
    const downAt = fx.members.map((m) => countLines(m.results));
    // Past cluster-node-timeout (2 s): the other masters mark the cluster down too.
    const others = fx.redisCluster.servers.filter((s) => s !== node);
    await waitFor(
      async () =>
        (await Promise.all(others.map((s) => clusterInfo(s.port)))).every((i) =>
          /cluster_state:fail/.test(i),
        ),
      { what: 'the other masters to mark the cluster down', every: 100 },
    );
    for (const m of fx.members) expect(m.proc.child.exitCode, m.proc.stdout()).toBeNull();
    await node.resume();
    // Bounded, so a stall shows the daemons' logs instead of the test's timeout.
    const codes = await Promise.race([
      Promise.all(fx.members.map((m) => m.proc.exited)),
      new Promise((r) => setTimeout(() => r('still running after 90 s'), 90_000)),
    ]);
    expect(codes, fx.members.map((m) => m.proc.stdout().slice(-3000)).join('\n')).toEqual([0, 0]);
    const after = fx.members.map((m) => countLines(m.results));
    console.log(
      `redis cluster node restart: pages when stopped ${downAt.join(', ')}, at the end ${after.join(', ')}`,
    );
    const files = fx.members.map((m) => m.results);
    expect(missing(files)).toEqual([]);
    expect(duplicates(files)).toEqual([]);
  }, 180_000);

  it('/readyz is 503 while no node answers and 200 once they are back; the crawl completes', async () => {
    const port = await freePort();
    fx.members = startCluster({
      redisNodes: fx.redisCluster.nodes,
      keyPrefix: 'down',
      origin: fx.origin,
      daemons: 1,
      leaseMs: 20_000,
      extra: () => ({ http: { port }, ...slow }),
    });
    await waitFor(async () => (await readyz(port)) === 200, 'the daemon ready');
    await waitFor(() => countLines(fx.members[0]!.results) >= 20, { what: '20 pages', deadlineMs: 60_000 });
    for (const s of fx.redisCluster.servers) await s.pause();
    await waitFor(async () => (await readyz(port)) === 503, {
      what: 'readyz 503 while the frontier is down',
      deadlineMs: 15_000,
    });
    await pause(1_500, 'the outage lasts: the daemon must outlive it');
    expect(fx.members[0]!.proc.child.exitCode).toBeNull();
    for (const s of fx.redisCluster.servers) await s.resume();
    await waitFor(async () => (await readyz(port)) === 200, {
      what: 'the daemon ready again',
      deadlineMs: 30_000,
    });
    expect(await fx.members[0]!.proc.exited, fx.members[0]!.proc.stdout()).toBe(0);
    expect(missing([fx.members[0]!.results])).toEqual([]);
    expect(duplicates([fx.members[0]!.results])).toEqual([]);
  }, 180_000);
});
