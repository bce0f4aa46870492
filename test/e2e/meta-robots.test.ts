import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJsonl, runCli, tempDir, writeJsonConfig } from '../helpers/cli.js';
import { useSite } from '../helpers/engine.js';

/** path -> [extra head markup, X-Robots-Tag header or undefined] */
const PAGES: Record<string, [string, string | undefined]> = {
  '/nofollow': ['<meta name="robots" content="nofollow">', undefined],
  '/noindex': ['<meta name="ROBOTS" content="NoIndex">', undefined],
  '/none': ['<meta name="crawld" content="none">', undefined],
  '/xrt': ['', 'crawld: nofollow'],
  '/xrt-all': ['', 'noindex'],
  '/other': ['<meta name="otherbot" content="noindex, nofollow">', undefined],
  '/xrt-other': ['', 'otherbot: noindex, nofollow'],
  '/canon': ['<link rel="canonical" href="/canonical-page?id=1">', undefined],
};

describe('meta robots, X-Robots-Tag and canonical (whole CLI)', () => {
  const site = useSite((req, res) => {
    const path = req.url ?? '/';
    if (path === '/robots.txt') return res.writeHead(404).end();
    const [head, xrt] = PAGES[path] ?? ['', undefined];
    const links =
      path === '/'
        ? Object.keys(PAGES).map((p) => `<a href="${p}">${p}</a>`)
        : [`<a href="/from${path}">next</a>`];
    res.writeHead(200, { 'content-type': 'text/html', ...(xrt ? { 'x-robots-tag': xrt } : {}) });
    res.end(`<html><head><title>${path}</title>${head}</head><body>${links.join('')}</body></html>`);
  });

  const byPath = (dataDir: string) =>
    new Map(readJsonl(join(dataDir, 'results.jsonl')).map((r) => [new URL(String(r.url)).pathname, r]));

  it("crawl --once: nofollow / none keep links unfollowed, noindex marks the record, another bot's directives do not apply", async () => {
    const dataDir = tempDir();
    const run = await runCli([
      'crawl',
      `${site.origin}/`,
      '--data-dir',
      dataDir,
      '--allow-private-networks',
      '--once',
    ]);
    expect(run.code).toBe(0);
    for (const p of ['/from/nofollow', '/from/none', '/from/xrt']) expect(site.hits).not.toContain(p);
    for (const p of ['/from/noindex', '/from/xrt-all', '/from/other', '/from/xrt-other', '/from/canon'])
      expect(site.hits).toContain(p);
    const records = byPath(dataDir);
    for (const p of ['/noindex', '/none', '/xrt-all']) expect(records.get(p)?.noindex).toBe(true);
    for (const p of ['/', '/nofollow', '/xrt', '/other', '/xrt-other', '/canon'])
      expect(records.get(p)).not.toHaveProperty('noindex');
    expect(records.get('/canon')?.canonicalUrl).toBe(`${site.origin}/canonical-page?id=1`);
    expect(records.get('/')).not.toHaveProperty('canonicalUrl');
  });

  async function runJob(robots: unknown, headers: Record<string, string> = {}) {
    const dataDir = tempDir();
    const file = writeJsonConfig(
      tempDir('crawld-meta-config-'),
      {
        dataDir,
        fetch: { allowPrivateNetworks: true },
        jobs: [{ id: 'meta', seeds: [`${site.origin}/`], robots, request: { headers } }],
      },
      'config.json',
    );
    const run = await runCli(['run', '--config', file, '--once']);
    expect(run.code).toBe(0);
    return byPath(dataDir);
  }

  it('robots: { dropNoindex: true } writes no record for noindex pages, still follows their links', async () => {
    const records = await runJob({ dropNoindex: true });
    for (const p of ['/noindex', '/none', '/xrt-all']) expect(records.has(p)).toBe(false);
    expect(records.has('/nofollow')).toBe(true);
    expect(site.hits).toContain('/from/noindex');
    expect(site.hits).not.toContain('/from/nofollow');
  });

  it('robots: { meta: false } ignores the directives', async () => {
    const records = await runJob({ meta: false });
    for (const p of ['/from/nofollow', '/from/none', '/from/xrt']) expect(site.hits).toContain(p);
    expect(records.get('/noindex')).not.toHaveProperty('noindex');
  });

  it("a job's own User-Agent makes its token the one that applies", async () => {
    const records = await runJob(true, { 'User-Agent': 'OtherBot/3.0 (+http://other.test)' });
    // otherbot's directives apply now; crawld's do not.
    expect(site.hits).not.toContain('/from/other');
    expect(site.hits).not.toContain('/from/xrt-other');
    expect(site.hits).toContain('/from/xrt');
    expect(records.get('/other')?.noindex).toBe(true);
    expect(records.get('/none')).not.toHaveProperty('noindex');
  });
});
