/**
 * crawld's WARC replays in a real replay tool: a crawl through the CLI (no --http-port) of a
 * site with plain, gzip-encoded and chunked pages, a redirect and a page with a stylesheet and
 * an image; then the site is closed and ReplayWeb.page (npm `replaywebpage`: its embed, ui.js
 * and service worker) replays the pages from the .warc.gz alone, in Chromium where every
 * request to anything but 127.0.0.0/8 is aborted. A recrawl's archive, with its revisit
 * records, replays too.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJsonl, runCli, startCli, tempDir, writeJsonConfig } from '../helpers/cli.js';
import { browserFetch, requireChromium } from '../helpers/js-site.js';
import {
  CSS,
  ETAG_PAGE,
  H1_COLOR,
  LOGO,
  LOGO_SIZE,
  REDIRECT,
  REPLAY_PAGES,
  type ReplayPage,
  type ReplaySite,
  startReplaySite,
} from '../helpers/replay-site.js';
import {
  launchReplayBrowser,
  openReplay,
  type ReplayBrowser,
  type ReplayServer,
  replayWebPageDir,
  startReplayServer,
} from '../helpers/replay-web-page.js';
import { waitFor } from '../helpers/wait.js';
import { parseHttp, readWarcGz, type TestRecord, warcFiles } from '../helpers/warc.js';

/**
 * ReplayWeb.page opens one file: the folder's files concatenated, as docs/archives.md says (each
 * record is a gzip member of its own, so the concatenation is a WARC file too).
 */
function concatenated(dir: string): string {
  const whole = join(dir, 'crawl.warc.gz');
  writeFileSync(whole, Buffer.concat(warcFiles(join(dir, 'data', 'warc')).map((f) => readFileSync(f))));
  return whole;
}

const page = (path: string): ReplayPage => REPLAY_PAGES.find((p) => p.path === path)!;

describe('WARC replay in ReplayWeb.page (real Chromium)', () => {
  let site: ReplaySite | undefined;
  let replay: ReplayServer | undefined;
  let browser: ReplayBrowser | undefined;
  let dir = '';
  let origin = '';
  let records: TestRecord[] = [];

  beforeAll(async () => {
    requireChromium();
    const rwp = replayWebPageDir();
    site = await startReplaySite();
    origin = site.origin;
    dir = tempDir();
    const config = writeJsonConfig(dir, {
      fetch: browserFetch(site.port),
      // The smallest file size: the big page's exchange gets a file of its own, so the crawl
      // leaves several files, as a long one does.
      sinks: [{ kind: 'jsonl' }, { kind: 'warc', maxFileBytes: 65_536 }],
      // Rendered with nothing blocked: the page's stylesheet and image are archived.
      jobs: [{ id: 'shop', seeds: [`${origin}/`], render: { kind: 'browser', blockResources: [] } }],
    });
    const run = await runCli(
      ['crawl', `${origin}/`, '--config', config, '--once', '--no-progress'],
      {},
      120_000,
    );
    expect(run.code, run.stderr).toBe(0);
    // Replay must come from the archive alone.
    await site.close();
    site = undefined;
    expect(warcFiles(join(dir, 'data', 'warc')).length).toBeGreaterThan(1);
    const whole = concatenated(dir);
    records = readWarcGz(whole);
    replay = await startReplayServer(whole, rwp);
    browser = await launchReplayBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await replay?.close();
    await site?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the archive holds the pages as they crossed the wire: gzip-encoded, chunked, a redirect', () => {
    const heads = new Map<string, string[]>();
    for (const r of records) {
      if (r.fields['warc-type'] !== 'response') continue;
      const http = parseHttp(r.block);
      heads.set(new URL(r.fields['warc-target-uri']!).pathname, [
        http.startLine,
        ...http.headers.map(([k, v]) => `${k.toLowerCase()}: ${v}`),
      ]);
    }
    for (const p of REPLAY_PAGES) {
      const head = heads.get(p.path) ?? [];
      expect(head[0], p.path).toMatch(/^HTTP\/1\.1 200 /);
      expect(head.includes('content-encoding: gzip'), p.path).toBe(p.encoding === 'gzip');
      expect(head.includes('x-crawld-transfer-encoding: chunked'), p.path).toBe(p.chunked);
    }
    expect(heads.get(REDIRECT.from)?.[0]).toMatch(/^HTTP\/1\.1 301 /);
    expect(heads.get(REDIRECT.from)).toContain(`location: ${REDIRECT.to}`);
    for (const sub of ['/style.css', '/logo.png']) expect(heads.get(sub)?.[0], sub).toMatch(/ 200 /);
  });

  it('replays every archived page with the title and text the server sent', async () => {
    for (const p of REPLAY_PAGES) {
      const frame = await openReplay(browser!, replay!, `${origin}${p.path}`);
      expect(await frame.title(), p.path).toBe(p.title);
      expect(await frame.textContent('h1'), p.path).toBe(p.title);
      expect(await frame.textContent('#text'), p.path).toBe(p.text);
      await frame.page().close();
    }
    // ReplayWeb.page read the .warc.gz and indexed it itself: it asked for no other file.
    expect(replay!.requests.filter((r) => r.startsWith('/archive/'))).toEqual(['/archive/crawl.warc.gz']);
  }, 120_000);

  it('replays the redirect to its target', async () => {
    const frame = await openReplay(browser!, replay!, `${origin}${REDIRECT.from}`, {
      shows: `${origin}${REDIRECT.to}`,
    });
    expect(await frame.title()).toBe(page(REDIRECT.to).title);
    expect(await frame.textContent('#text')).toBe(page(REDIRECT.to).text);
    await frame.page().close();
  }, 90_000);

  it('serves the stylesheet and the image from the archive', async () => {
    const frame = await openReplay(browser!, replay!, `${origin}/styled`);
    // Expressions, not functions: the tests compile without the DOM's types.
    expect(await frame.evaluate("getComputedStyle(document.querySelector('h1')).color")).toBe(H1_COLOR);
    await frame.waitForFunction("document.getElementById('logo').complete");
    const size = await frame.evaluate(
      "(({ naturalWidth: width, naturalHeight: height }) => ({ width, height }))(document.getElementById('logo'))",
    );
    expect(size).toEqual(LOGO_SIZE);
    // The bytes themselves, fetched in the replayed page (its fetch goes to the archive).
    const bytes = (url: string) =>
      frame.evaluate(async (u) => {
        const r = await fetch(u);
        return [...new Uint8Array(await r.arrayBuffer())];
      }, url);
    expect(Buffer.from(await bytes(`${origin}/style.css`))).toEqual(CSS);
    expect(Buffer.from(await bytes(`${origin}/logo.png`))).toEqual(LOGO);
    await frame.page().close();
  }, 90_000);
});

describe("a recrawl's revisit records in ReplayWeb.page (real Chromium)", () => {
  let site: ReplaySite | undefined;
  let replay: ReplayServer | undefined;
  let browser: ReplayBrowser | undefined;
  let dir = '';
  afterAll(async () => {
    await browser?.close();
    await replay?.close();
    await site?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('at the time of a 304 (server-not-modified) or an unchanged 200 (identical-payload-digest), the page replays', async () => {
    requireChromium();
    const rwp = replayWebPageDir();
    site = await startReplaySite();
    const origin = site.origin;
    dir = tempDir();
    const config = writeJsonConfig(dir, {
      fetch: { allowAddresses: [`127.0.0.1:${site.port}`] },
      sinks: [{ kind: 'jsonl' }, { kind: 'warc' }],
      jobs: [{ id: 'shop', seeds: [`${origin}/`], recrawlIntervalMs: 1000 }],
    });
    // A daemon, not --once: it recrawls each page a second after it fetched it.
    const cli = startCli(['crawl', `${origin}/`, '--config', config, '--no-progress']);
    const results = join(dir, 'data', 'results.jsonl');
    const fetched = (path: string) => readJsonl(results).filter((r) => r.url === `${origin}${path}`);
    await waitFor(() => fetched(ETAG_PAGE.path).some((r) => r.status === 304) && fetched('/').length >= 2, {
      what: 'a 304 for /etag and a second 200 for /',
      deadlineMs: 60_000,
      every: 200,
    });
    cli.child.kill('SIGTERM');
    expect(await cli.exited, cli.stderr()).toBe(0);
    await site.close();
    site = undefined;

    const whole = concatenated(dir);
    const revisits = readWarcGz(whole).filter((r) => r.fields['warc-type'] === 'revisit');
    const revisitOf = (path: string, profile: string) =>
      revisits.find(
        (r) =>
          r.fields['warc-target-uri'] === `${origin}${path}` && r.fields['warc-profile']?.endsWith(profile),
      );
    const notModified = revisitOf(ETAG_PAGE.path, '/server-not-modified');
    const identical = revisitOf('/', '/identical-payload-digest');
    expect(notModified).toBeDefined();
    expect(identical).toBeDefined();
    replay = await startReplayServer(whole, rwp);
    browser = await launchReplayBrowser();
    for (const [path, record] of [
      [ETAG_PAGE.path, notModified!],
      ['/', identical!],
    ] as const) {
      // At the revisit's own time. crawld's revisits refer to the last capture of the same URL,
      // which is also what ReplayWeb.page falls back to without WARC-Refers-To-* (tried by hand).
      const ts = record.fields['warc-date']!.replace(/\D/g, '').slice(0, 14);
      const frame = await openReplay(browser, replay, `${origin}${path}`, { ts });
      expect(frame.url(), path).toContain(`/${ts}mp_/`);
      expect(await frame.title(), path).toBe(page(path).title);
      expect(await frame.textContent('#text'), path).toBe(page(path).text);
      await frame.page().close();
    }
  }, 150_000);
});
