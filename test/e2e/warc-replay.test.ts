/**
 * crawld's WARC replays in a real replay tool: a crawl through the CLI (`crawl --once`, no
 * --http-port) of a site with plain, gzip-encoded and chunked pages, a redirect and a page with
 * a stylesheet and an image, rendered in Chromium so that its subresources are archived; then
 * the site is closed and ReplayWeb.page (npm `replaywebpage`: its embed, ui.js and service
 * worker) replays each page from the .warc.gz alone in Chromium. Every request to anything but
 * 127.0.0.0/8 is aborted, and Chromium's proxy for everything but loopback is a closed port.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { type BrowserContext, chromium, type Frame } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, writeJsonConfig } from '../helpers/cli.js';
import { browserFetch, CHROMIUM, requireChromium } from '../helpers/js-site.js';
import {
  CSS,
  H1_COLOR,
  LOGO,
  LOGO_SIZE,
  REDIRECT,
  REPLAY_PAGES,
  type ReplaySite,
  startReplaySite,
} from '../helpers/replay-site.js';
import { type ReplayServer, replayWebPageDir, startReplayServer } from '../helpers/replay-web-page.js';
import { waitFor } from '../helpers/wait.js';
import { parseHttp, readWarcGz, type TestRecord, warcFiles } from '../helpers/warc.js';

/** 127.0.0.0/8 only. */
function loopback(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  if (protocol === 'data:' || protocol === 'blob:') return true;
  return /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/** The frame ReplayWeb.page shows `url` in: /replay/w/COLL/[TS]mp_/URL. */
function replayedFrame(frames: readonly Frame[], url: string): Frame | undefined {
  return frames.find((f) => {
    const m = /\/w\/[^/]+\/\d*mp_\/(.+)$/.exec(f.url());
    return m !== null && m[1] === url;
  });
}

describe('WARC replay in ReplayWeb.page (real Chromium)', () => {
  let site: ReplaySite | undefined;
  let replay: ReplayServer | undefined;
  let context: BrowserContext | undefined;
  let profile: string | undefined;
  let dir = '';
  let origin = '';
  let archivePath = '';
  let records: TestRecord[] = [];
  const blocked: string[] = [];

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
    const warcDir = join(dir, 'data', 'warc');
    expect(readdirSync(warcDir).filter((n) => n.endsWith('.open'))).toEqual([]);
    const files = warcFiles(warcDir);
    expect(files.length).toBeGreaterThan(1);
    // ReplayWeb.page opens one file: the files concatenated, as docs/archives.md says (each
    // record is a gzip member of its own, so the concatenation is a WARC file too).
    const whole = join(dir, 'crawl.warc.gz');
    writeFileSync(whole, Buffer.concat(files.map((f) => readFileSync(f))));
    records = readWarcGz(whole);
    replay = await startReplayServer(whole, rwp);
    archivePath = `/archive/${basename(whole)}`;
    profile = mkdtempSync(join(tmpdir(), 'crawld-replay-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        // Anything not loopback that slipped past the route below goes to a closed port.
        '--proxy-server=http://127.0.0.1:9',
      ],
    });
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (loopback(url)) return route.continue();
      blocked.push(url);
      return route.abort('blockedbyclient');
    });
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    await replay?.close();
    await site?.close();
    for (const d of [profile, dir]) if (d) rmSync(d, { recursive: true, force: true });
  });

  async function open(url: string): Promise<Frame> {
    const page = await context!.newPage();
    await page.goto(replay!.embedUrl(url));
    const frame = await waitFor(() => replayedFrame(page.frames(), url), {
      what: `${url} replayed (requests blocked: ${blocked.join(' ') || 'none'})`,
      deadlineMs: 60_000,
    });
    await frame.waitForLoadState('load');
    return frame;
  }

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
      const frame = await open(`${origin}${p.path}`);
      expect(await frame.title(), p.path).toBe(p.title);
      expect(await frame.textContent('h1'), p.path).toBe(p.title);
      expect(await frame.textContent('#text'), p.path).toBe(p.text);
      await frame.page().close();
    }
    // ReplayWeb.page read the .warc.gz and indexed it itself: it asked for nothing else.
    expect(replay!.requests.filter((r) => r.startsWith('/archive/'))).toEqual([archivePath]);
  }, 120_000);

  it('replays the redirect to its target', async () => {
    const page = await context!.newPage();
    await page.goto(replay!.embedUrl(`${origin}${REDIRECT.from}`));
    const frame = await waitFor(() => replayedFrame(page.frames(), `${origin}${REDIRECT.to}`), {
      what: `${REDIRECT.from} replayed as ${REDIRECT.to} (requests blocked: ${blocked.join(' ') || 'none'})`,
      deadlineMs: 60_000,
    });
    await frame.waitForLoadState('load');
    const target = REPLAY_PAGES.find((p) => p.path === REDIRECT.to)!;
    expect(await frame.title()).toBe(target.title);
    expect(await frame.textContent('#text')).toBe(target.text);
    await page.close();
  }, 90_000);

  it('serves the stylesheet and the image from the archive', async () => {
    const frame = await open(`${origin}/styled`);
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
