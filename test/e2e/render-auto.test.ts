/**
 * `render: { kind: auto }` through the CLI as a user runs it (`crawld run --once`, no HTTP
 * server), with real Chromium: a plain shop is decided HTTP after its sample, a JavaScript one
 * the browser; a shop that switches to JavaScript mid-crawl is caught and no page is recorded
 * without its fields; the decisions survive a restart.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoSite, startDemoSite } from '../../src/demo/site.js';
import { readJsonl, runOnce, startCli, tempDir, writeJsonConfig } from '../helpers/cli.js';
import { CHROMIUM, requireChromium } from '../helpers/js-site.js';

const PAGES = 24;

interface Rec {
  url: string;
  fields: { title?: string | null; price?: number | null };
}

function autoConfig(dir: string, sites: readonly DemoSite[], render: Record<string, unknown> = {}) {
  return writeJsonConfig(dir, {
    log: { level: 'info' },
    fetch: { allowPrivateNetworks: true, browser: { executablePath: CHROMIUM, maxPages: 2 } },
    concurrency: { maxPerHost: 4 },
    jobs: [
      {
        id: 'shops',
        seeds: sites.map((s) => `${s.url}/`),
        robots: false,
        render: { kind: 'auto', waitForSelector: 'span.price', samplePages: 3, recheckEvery: 4, ...render },
        extract: {
          fields: {
            title: { selector: 'h1.title', required: true },
            price: { selector: 'span.price', type: 'number', required: true },
          },
          followAllLinks: { tags: ['a'] },
        },
      },
    ],
  });
}

/** The decisions the daemon logged: host -> decision, in order. */
function decisions(out: string): [string, string][] {
  return out
    .split('\n')
    .filter((l) => l.includes('host render decided'))
    .map((l) => JSON.parse(l) as { host: string; decision: string })
    .map((l) => [l.host, l.decision]);
}

function expectComplete(records: readonly Rec[]): void {
  const incomplete = records.filter((r) => !r.fields.title || typeof r.fields.price !== 'number');
  expect(incomplete.map((r) => r.url)).toEqual([]);
}

describe('render: { kind: auto } with real Chromium', () => {
  let plain: DemoSite;
  let js: DemoSite;
  beforeAll(async () => {
    requireChromium();
    plain = await startDemoSite({ port: 0, host: '127.0.0.1', pages: PAGES });
    js = await startDemoSite({ port: 0, host: '127.0.0.1', pages: PAGES, js: true });
  });
  afterAll(async () => {
    await plain?.close();
    await js?.close();
  });

  it('decides the plain shop http and the JavaScript shop browser, every record complete, and keeps the decisions across a restart', async () => {
    const dir = tempDir('crawld-auto-');
    const config = autoConfig(dir, [plain, js]);
    const first = await runOnce(config, 120_000);
    expect(first.code, first.stderr + first.stdout).toBe(0);
    const host = (s: DemoSite) => new URL(s.url).host;
    expect(decisions(first.stdout)).toEqual(
      expect.arrayContaining([
        [host(plain), 'http'],
        [host(js), 'browser'],
      ]),
    );
    expect(decisions(first.stdout)).toHaveLength(2);
    const records = readJsonl(join(dir, 'data', 'results.jsonl')) as unknown as Rec[];
    expect(records).toHaveLength(2 * PAGES);
    expectComplete(records);
    const summary = /render auto: (\d+) http, (\d+) browser, (\d+) both/.exec(first.stdout);
    expect(summary, first.stdout).not.toBeNull();
    const [http, browser, both] = (summary ?? []).slice(1).map(Number) as [number, number, number];
    // Each shop's sample was fetched both ways; after it, the plain shop over HTTP only.
    expect(both).toBeGreaterThanOrEqual(3);
    expect(http).toBeGreaterThan(PAGES / 2);
    expect(browser).toBeGreaterThan(PAGES / 2);

    // A restart on the same data dir: new pages of both shops are fetched as decided, with
    // no new sample (a re-check of the plain shop aside).
    const more = writeJsonConfig(dir, {
      log: { level: 'info' },
      fetch: { allowPrivateNetworks: true, browser: { executablePath: CHROMIUM, maxPages: 2 } },
      jobs: [
        {
          id: 'shops',
          seeds: [`${plain.url}/p/3?again=1`, `${js.url}/p/3?again=1`],
          robots: false,
          scope: { hosts: [host(plain), host(js)] },
          render: { kind: 'auto', waitForSelector: 'span.price', samplePages: 3, recheckEvery: 1000 },
          extract: { fields: { title: { selector: 'h1.title', required: true } }, followAllLinks: false },
        },
      ],
    });
    const second = await runOnce(more, 120_000);
    expect(second.code, second.stderr + second.stdout).toBe(0);
    expect(decisions(second.stdout)).toEqual([]);
    expect(second.stdout).toMatch(/render auto: 1 http, 1 browser, 0 both/);
  }, 180_000);
});

describe('a shop that starts rendering with JavaScript mid-crawl', () => {
  let shop: DemoSite;
  beforeAll(async () => {
    requireChromium();
    shop = await startDemoSite({ port: 0, host: '127.0.0.1', pages: 60, latencyMs: 40 });
  });
  afterAll(() => shop?.close());

  it('is caught by the re-checks or the missing fields: no record without its fields', async () => {
    const dir = tempDir('crawld-auto-switch-');
    const config = autoConfig(dir, [shop], { samplePages: 2, recheckEvery: 3 });
    const cli = startCli(['run', '--config', config, '--once', '--no-progress']);
    // Once the shop is decided http, it starts rendering client-side.
    await cli.waitFor(/"decision":"http"/, 60_000);
    shop.setJs(true);
    const code = await cli.exited;
    expect(code, cli.stderr() + cli.stdout()).toBe(0);
    const host = new URL(shop.url).host;
    expect(decisions(cli.stdout())).toEqual([
      [host, 'http'],
      [host, 'browser'],
    ]);
    const records = readJsonl(join(dir, 'data', 'results.jsonl')) as unknown as Rec[];
    expect(records).toHaveLength(60);
    expectComplete(records);
  }, 180_000);
});
