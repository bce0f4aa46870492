/**
 * Three `crawld run` daemons on one Redis frontier (real redis-server, real CLI) write WARC
 * files into one folder: each its own files (its instance id in every name and warcinfo), none
 * colliding, each file whole and closed, every page of the site archived once.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { sitePages, startCluster, useClusterFixture } from '../helpers/cluster.js';
import { parseHttp, readWarcGz, sha1Of } from '../helpers/warc.js';

const PAGES = 600;
const fx = useClusterFixture({ pages: PAGES, latencyMs: 20 });

describe('three daemons on one Redis write one WARC folder', () => {
  it('each writes its own files, none collides, every page is archived once', async () => {
    const shared = join(tempDir('crawld-warc-cluster-'), 'warc');
    fx.members = startCluster({
      redisUrl: fx.redis.url,
      keyPrefix: 'warc',
      origin: fx.origin,
      daemons: 3,
      extra: () => ({
        concurrency: { global: 16, maxPerHost: 8, initialPerHost: 8 },
        sinks: [{ kind: 'jsonl' }, { kind: 'warc', dir: shared, maxFileBytes: 300_000 }],
      }),
    });
    const codes = await Promise.all(fx.members.map((m) => m.proc.exited));
    expect(codes, fx.members.map((m) => m.proc.stderr()).join('\n')).toEqual([0, 0, 0]);

    const names = readdirSync(shared).filter((n) => !n.startsWith('.'));
    expect(names.filter((n) => n.endsWith('.open'))).toEqual([]);
    const warcs = names.filter((n) => n.endsWith('.warc.gz'));
    const byDaemon = new Map<string, number>();
    const pages = new Map<string, number>();
    for (const name of warcs) {
      const m = /^crawld-\d{17}-\d{5}-(d\d)\.warc\.gz$/.exec(name);
      expect(m, name).not.toBeNull();
      byDaemon.set(m![1]!, (byDaemon.get(m![1]!) ?? 0) + 1);
      expect(names).toContain(name.replace(/\.warc\.gz$/, '.cdxj'));
      const records = readWarcGz(join(shared, name));
      expect(records[0]!.fields['warc-filename']).toBe(name);
      expect(records[0]!.block.toString()).toContain(`instance: ${m![1]}\r\n`);
      for (const r of records.filter((x) => x.fields['warc-type'] === 'response')) {
        const http = parseHttp(r.block);
        expect(r.fields['warc-payload-digest']).toBe(sha1Of(http.body));
        if (!http.startLine.includes(' 200 ')) continue;
        const url = r.fields['warc-target-uri']!;
        pages.set(url, (pages.get(url) ?? 0) + 1);
      }
    }
    console.log(`warc cluster: files per daemon ${[...byDaemon].map(([d, n]) => `${d} ${n}`).join(', ')}`);
    expect([...byDaemon.keys()].sort()).toEqual(['d0', 'd1', 'd2']);
    expect(sitePages(fx.origin, PAGES).filter((u) => !pages.has(u))).toEqual([]);
    // robots.txt once per daemon; every page once.
    const twice = [...pages].filter(([u, n]) => n > 1 && !u.endsWith('/robots.txt'));
    expect(twice).toEqual([]);
  }, 120_000);
});
