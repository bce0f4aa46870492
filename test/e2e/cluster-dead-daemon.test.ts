/**
 * What "exactly once" means when a daemon of a shared crawl dies and never comes back: three
 * daemons on one Redis frontier, each writing its own results.jsonl and all writing to one
 * PostgreSQL database; one is SIGKILLed mid-crawl and never restarted.
 *
 * - The shared PostgreSQL sink holds exactly one row per page: a page the dead daemon wrote
 *   and died before acking is fetched again by a survivor, whose insert is a no-op (the row's
 *   key is the task's id and crawl generation, which a re-lease keeps).
 * - The per-daemon files hold every page at least once. A page in two files is the dead
 *   daemon's and one survivor's, and both records carry the same `key`, `taskId` and
 *   `generation`: a consumer merging the files drops the repeat by that key.
 *
 * And when the daemon is restarted on its data dir instead, it takes back its dead run's
 * leases at once (its lease owner is kept in the data dir) and reconciles them with its file:
 * every page exactly once, without waiting for the leases to expire.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countLines, runCli, startCli, tempDir } from '../helpers/cli.js';
import { countByUrl, type Member, sitePages, startCluster, useClusterFixture } from '../helpers/cluster.js';
import { usePostgres } from '../helpers/postgres-server.js';
import { waitFor } from '../helpers/wait.js';

const PAGES = 1500;

interface Rec {
  url: string;
  key: string;
  taskId: string;
  generation: number;
}

/** A results file's records; a torn last line (SIGKILL mid-write) is not a record. */
function records(path: string): Rec[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .flatMap((line) => {
      try {
        return line === '' ? [] : [JSON.parse(line) as Rec];
      } catch {
        return [];
      }
    });
}

describe('a daemon of a shared crawl SIGKILLed and never restarted', () => {
  const fx = useClusterFixture({ pages: PAGES, latencyMs: 20 });
  const postgres = usePostgres();

  it('leaves one row per page in a shared PostgreSQL sink, and a repeat in the files that its key names', async () => {
    fx.members = startCluster({
      redisUrl: fx.redis.url,
      keyPrefix: 'dead',
      origin: fx.origin,
      daemons: 3,
      leaseMs: 3_000,
      // A page's record goes to both sinks before its ack, and the PostgreSQL sink flushes every
      // 500 ms: the victim dies with pages written to its file and not acked, as a real crash does.
      extra: () => ({
        concurrency: { maxPerHost: 8, initialPerHost: 8 },
        sinks: [{ kind: 'jsonl' }, { kind: 'postgres', url: postgres.server.url, flushIntervalMs: 500 }],
      }),
    });
    const [victim, ...survivors] = fx.members as [Member, Member, Member];
    await waitFor(() => countLines(victim.results) >= 100, {
      what: '100 pages from the victim',
      deadlineMs: 60_000,
    });
    victim.proc.child.kill('SIGKILL');
    expect(await victim.proc.exited).toBe('SIGKILL');
    const codes = await Promise.all(survivors.map((m) => m.proc.exited));
    expect(codes, survivors.map((m) => m.proc.stderr()).join('\n')).toEqual([0, 0]);

    const pg = await postgres.db.query(
      'SELECT count(*)::int AS n, count(DISTINCT url)::int AS urls, count(DISTINCT record_key)::int AS keys FROM crawld_results',
    );
    expect(pg.rows[0]).toEqual({ n: PAGES, urls: PAGES, keys: PAGES });

    const files = fx.members.map((m) => m.results);
    const counts = countByUrl(files);
    expect(
      sitePages(fx.origin, PAGES).filter((u) => !counts.has(u)),
      'pages missing from the files',
    ).toEqual([]);
    const repeated = [...counts].filter(([, n]) => n > 1).map(([u]) => u);
    const victimUrls = new Set(records(victim.results).map((r) => r.url));
    const all = files.flatMap(records);
    for (const url of repeated) {
      const copies = all.filter((r) => r.url === url);
      expect(copies.length, url).toBe(2);
      expect(victimUrls.has(url), `${url}: one copy is the dead daemon's`).toBe(true);
      const ids = new Set(copies.map((r) => `${r.key} ${r.taskId} ${r.generation}`));
      expect(ids.size, `${url}: both copies carry one key, task and generation`).toBe(1);
    }
    // The files' union, deduplicated by that key, is the crawl: one record per page.
    const byKey = new Set(all.map((r) => `${r.key} ${r.taskId} ${r.generation}`));
    expect(byKey.size).toBe(PAGES);
    console.log(
      `dead daemon: victim wrote ${victimUrls.size} pages; survivors ${survivors
        .map((m) => countLines(m.results))
        .join(', ')}; pages in two files: ${repeated.length}; rows in postgres: ${pg.rows[0].n}`,
    );
  }, 120_000);

  it("restarted on its data dir, takes its dead run's leases back at once: every page exactly once", async () => {
    const dir = tempDir('crawld-restart-');
    const config = join(dir, 'crawld.json');
    writeFileSync(
      config,
      JSON.stringify({
        dataDir: join(dir, 'data'),
        // Leases that outlast the test: the restart can only finish by reconciling them.
        frontier: { kind: 'redis', url: `${fx.redis.url}/0`, keyPrefix: 'restart', leaseMs: 600_000 },
        concurrency: { maxPerHost: 8, initialPerHost: 8 },
        fetch: { allowAddresses: [new URL(fx.origin).host] },
        jobs: [{ id: 'site', seeds: [`${fx.origin}/`] }],
      }),
    );
    const results = join(dir, 'data', 'results.jsonl');
    const first = startCli(['run', '--config', config, '--no-progress']);
    await waitFor(() => countLines(results) >= 100, {
      what: '100 pages before the kill',
      deadlineMs: 60_000,
    });
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');

    const second = await runCli(['run', '--config', config, '--once', '--no-progress'], {}, 90_000);
    expect(second.code, second.stderr).toBe(0);
    // `run` logs to stdout (stderr only where stdout carries a command's own output).
    expect(second.stdout).toMatch(/"message":"recovered leases of a previous run"/);
    const counts = countByUrl([results]);
    expect(
      sitePages(fx.origin, PAGES).filter((u) => !counts.has(u)),
      'pages missing',
    ).toEqual([]);
    expect(
      [...counts].filter(([, n]) => n > 1),
      'pages written twice',
    ).toEqual([]);
  }, 120_000);
});
