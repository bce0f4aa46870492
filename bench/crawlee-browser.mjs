// Crawlee's PlaywrightCrawler on the JS demo shop, with the same Chromium and the same
// extraction as bench/browser.mjs gives crawld (h1.title, span.price, the related links,
// after waiting for span.price). Run by bench/browser.mjs; prints `RESULT {json}`.
// Usage: node bench/crawlee-browser.mjs CRAWLEE_DIR ORIGIN N CHROMIUM MAX_CONCURRENCY
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dir, origin, nArg, chromiumPath, maxArg] = process.argv.slice(2);
const require = createRequire(join(dir, 'package.json'));
const load = (name) => import(pathToFileURL(require.resolve(name)).href);
const { PlaywrightCrawler, Configuration } = await load('@crawlee/playwright');
const { chromium } = await load('playwright');

const N = Number(nArg);
let done = 0;
let checksum = 0;
const config = new Configuration({ persistStorage: false, purgeOnStart: true });
const crawler = new PlaywrightCrawler(
  {
    launchContext: { launcher: chromium, launchOptions: { executablePath: chromiumPath, headless: true } },
    maxConcurrency: Number(maxArg),
    maxRequestsPerCrawl: N,
    maxRequestRetries: 2,
    requestHandlerTimeoutSecs: 30,
    async requestHandler({ page, enqueueLinks }) {
      await page.waitForSelector('span.price', { state: 'attached' });
      const title = await page.$eval('h1.title', (e) => e.textContent ?? '');
      const price = await page.$eval('span.price', (e) => e.textContent ?? '');
      checksum += title.length + price.length;
      await enqueueLinks({ selector: 'ul.related a' });
      done++;
    },
  },
  config,
);
const t0 = performance.now();
await crawler.run([`${origin}/`]);
const seconds = (performance.now() - t0) / 1000;
console.log(`RESULT ${JSON.stringify({ pages: done, seconds, checksum })}`);
