/**
 * A render host's adaptive limit starts from the browser pool's capacity (half of
 * fetch.browser.maxPages), not from concurrency.initialPerHost: `run --once` as a user runs
 * it, real Chromium, a shop whose pages fetch their data with a script (docs/browser.md, _Limits_).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJsonl, runOnce, tempDir, writeJsonConfig } from '../helpers/cli.js';
import { browserFetch, requireChromium } from '../helpers/js-site.js';

const PAGES = 30;
/** The first baseline probe holds minWindowSamples (20) renders at the initial limit. */
const PROBE_RENDERS = 20;

/** Product shells whose data comes 100 ms late; records how many renders each document met. */
async function startShop() {
  let rendering = 0;
  const metAtStart: number[] = [];
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    const product = /^\/p\/(\d+)$/.exec(url);
    if (product) {
      // A render runs from its document's request until its data is served.
      metAtStart.push(++rendering);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html><body><div id="app"></div><script>
fetch('/api/${product[1]}').then((r) => r.json()).then((p) => {
  document.getElementById('app').innerHTML = '<span class="price">' + p.price + '</span>';
});</script></body></html>`);
      return;
    }
    const api = /^\/api\/(\d+)$/.exec(url);
    if (api) {
      setTimeout(() => {
        rendering--;
        res.writeHead(200, { 'content-type': 'application/json' }).end(`{"price":${api[1]}}`);
      }, 100);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    metAtStart,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('the adaptive limit of a render host (real Chromium)', () => {
  let shop: Awaited<ReturnType<typeof startShop>>;
  beforeAll(async () => {
    requireChromium();
    shop = await startShop();
  });
  afterAll(async () => {
    await shop?.close();
  });

  it('starts at half the pool: the first probe renders at most 2 pages at once of a pool of 4', async () => {
    const dir = tempDir();
    const origin = `http://127.0.0.1:${shop.port}`;
    const config = writeJsonConfig(dir, {
      fetch: browserFetch(shop.port, { maxPages: 4 }),
      jobs: [
        {
          id: 'shop',
          seeds: Array.from({ length: PAGES }, (_, i) => `${origin}/p/${i}`),
          robots: false,
          render: { kind: 'browser', waitForSelector: 'span.price' },
          extract: { fields: { price: { selector: 'span.price', type: 'number' } }, followAllLinks: false },
        },
      ],
    });
    const r = await runOnce(config, 120_000);
    expect(r.code, r.stderr).toBe(0);
    const records = readJsonl(join(dir, 'data', 'results.jsonl'));
    expect(records).toHaveLength(PAGES);
    expect(records.every((rec) => typeof (rec.fields as { price?: unknown }).price === 'number')).toBe(true);
    // concurrency.initialPerHost (8) would have fetched 8 documents at once, half of them
    // then waiting for a page of the pool's 4.
    const probe = shop.metAtStart.slice(0, PROBE_RENDERS);
    expect(Math.max(...probe)).toBeLessThanOrEqual(2);
    expect(Math.max(...probe)).toBe(2);
  });
});
