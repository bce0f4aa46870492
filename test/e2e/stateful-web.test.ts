/**
 * The stateful web through the CLI as a user runs it (`crawld crawl URL --once`, no HTTP
 * server): a cookie wall, a session cookie, meta refresh, image maps, iframes, <base href> and
 * non-ASCII paths; the jar kept across a restart, off on request, never sent to another host,
 * and its values in no log line, record or dead letter.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJsonl, runCli, tempDir, writeJsonConfig } from '../helpers/cli.js';
import { useSite } from '../helpers/engine.js';
import { statefulSite, TARGETS, targetsReached } from '../helpers/stateful-site.js';

const shop = statefulSite();

describe('crawl --once on a site that needs cookies and refreshes', () => {
  const site = useSite(shop.handler);

  it('reaches all seven targets, with finalUrl after a meta refresh, and no cookie value anywhere', async () => {
    const dataDir = tempDir();
    const run = await runCli([
      'crawl',
      `${site.origin}/`,
      '--data-dir',
      dataDir,
      '--allow-private-networks',
      '--once',
      '--log-level',
      'debug',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const records = readJsonl(join(dataDir, 'results.jsonl'));
    expect(targetsReached(records)).toEqual([...TARGETS]);
    const moved = records.find((r) => String(r.url).endsWith('/moved'));
    expect(moved?.finalUrl).toBe(`${site.origin}/new`);
    const item = records.find((r) => String(r.url).endsWith('/item'));
    expect(item?.finalUrl).toBe(`${site.origin}/item`);
    expect(item?.status).toBe(200);
    // The site issued session ids; none is in a log line, the summary, a record or the dlq.
    expect(shop.issued.length).toBeGreaterThan(0);
    const dlq = await runCli(['dlq', 'list', '--json', '--data-dir', dataDir]);
    const everything = [
      run.stdout,
      run.stderr,
      readFileSync(join(dataDir, 'results.jsonl'), 'utf8'),
      dlq.stdout,
    ];
    for (const sid of shop.issued) for (const text of everything) expect(text).not.toContain(sid);
    expect(everything.join('\n')).not.toContain('consent=yes');
  });

  it('cookies: { jar: false } is stateless: the wall loops and the session page is refused', async () => {
    const dir = tempDir('crawld-nojar-');
    const config = writeJsonConfig(dir, {
      jobs: [{ id: 'nojar', seeds: [`${site.origin}/`], cookies: { jar: false } }],
    });
    const dataDir = join(dir, 'data');
    const run = await runCli([
      'crawl',
      `${site.origin}/`,
      '--config',
      config,
      '--data-dir',
      dataDir,
      '--allow-private-networks',
      '--once',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(targetsReached(readJsonl(join(dataDir, 'results.jsonl')))).toEqual([
      'refresh',
      'area',
      'iframe',
      'base',
      'unicode',
    ]);
    const dlq = await runCli(['dlq', 'list', '--json', '--data-dir', dataDir]);
    const reasons = dlq.stdout
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { url: string; reason: string })
      .map((d) => `${new URL(d.url).pathname} ${d.reason}`);
    expect(reasons.sort()).toEqual(['/item redirect_loop', '/session/b http_403']);
  });

  it('keeps the jar across a restart: a second run on the data dir sends the session it got', async () => {
    const dataDir = tempDir();
    const first = await runCli([
      'crawl',
      `${site.origin}/session/a`,
      '--data-dir',
      dataDir,
      '--allow-private-networks',
      '--once',
    ]);
    expect(first.code, first.stderr).toBe(0);
    // A page the first run never saw, behind the same session.
    const second = await runCli([
      'crawl',
      `${site.origin}/session/b?again=1`,
      '--data-dir',
      dataDir,
      '--allow-private-networks',
      '--once',
    ]);
    expect(second.code, second.stderr).toBe(0);
    const again = readJsonl(join(dataDir, 'results.jsonl')).find((r) => String(r.url).endsWith('again=1'));
    expect(again?.status).toBe(200);
    expect((again?.fields as { title?: string } | undefined)?.title).toBe('target: session');
  });
});

describe('a cookie never crosses to another host', () => {
  const other = useSite((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'theirs=1; Path=/' });
    res.end(`<title>other ${req.headers.cookie ?? 'none'}</title><a href="/more">more</a>`);
  });
  const seenByFirst: string[] = [];
  const first = useSite((req, res) => {
    seenByFirst.push(req.headers.cookie ?? '');
    if (req.url === '/robots.txt') return res.writeHead(404).end();
    // A domain cookie for the first host's own name, and a host-only one.
    res.writeHead(200, {
      'content-type': 'text/html',
      'set-cookie': ['mine=S3CRET-VALUE; Path=/', 'also=1; Domain=127.0.0.1; Path=/'],
    });
    // The other server as `localhost`: another host name for the same machine.
    const there = other.origin.replace('127.0.0.1', 'localhost');
    res.end(`<title>first</title><a href="${there}/">there</a><a href="/second">second</a>`);
  });

  it('sends the first host its cookies and the other host none of them', async () => {
    const dir = tempDir('crawld-xhost-');
    const there = new URL(other.origin.replace('127.0.0.1', 'localhost'));
    const config = writeJsonConfig(dir, {
      fetch: { allowPrivateNetworks: true },
      jobs: [
        {
          id: 'xhost',
          seeds: [`${first.origin}/`],
          scope: { hosts: [new URL(first.origin).host, there.host] },
        },
      ],
    });
    const run = await runCli(['run', '--config', config, '--once', '--no-progress']);
    expect(run.code, run.stderr).toBe(0);
    const titles = readJsonl(join(dir, 'data', 'results.jsonl')).map(
      (r) => (r.fields as { title: string }).title,
    );
    expect(titles).toContain('other none');
    expect(other.hits).toContain('/more');
    expect(
      titles.filter((t) => t.startsWith('other ')).every((t) => t === 'other none' || t === 'other theirs=1'),
    ).toBe(true);
    // The first host got its own cookies back on /second, never the other's.
    expect(seenByFirst.some((c) => c.includes('mine=S3CRET-VALUE'))).toBe(true);
    expect(seenByFirst.every((c) => !c.includes('theirs'))).toBe(true);
  });
});
