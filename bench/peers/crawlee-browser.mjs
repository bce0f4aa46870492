// Crawlee 3 PlaywrightCrawler on crawld's JS demo site (`crawld site --js`): the same extraction
// as crawld's browser path (title, h1.title, span.price after rendering; every same-origin link),
// the system Chromium, in-memory storage, autoscaled concurrency (Crawlee's default).
// Usage: node crawlee-browser.mjs ORIGIN N [CHROMIUM] [MAX_CONCURRENCY]. Prints `RESULT {json}`.
import { Configuration, log, PlaywrightCrawler } from 'crawlee';
import { chromium } from 'playwright';

const [origin, nArg = '500', executablePath = '/usr/bin/chromium', maxArg] = process.argv.slice(2);
const N = Number(nArg);
log.setLevel(log.LEVELS.OFF);
const config = new Configuration({ persistStorage: false, logLevel: log.LEVELS.OFF });

let done = 0;
let failed = 0;
let withPrice = 0;
const crawler = new PlaywrightCrawler(
  {
    launchContext: { launcher: chromium, launchOptions: { executablePath, headless: true } },
    // Same wait as crawld's default render: the load event, then the rendered price.
    navigationTimeoutSecs: 30,
    maxRequestsPerCrawl: N,
    // Pages at once: autoscaled by Crawlee unless set (bench/browser.mjs --max-pages), then
    // held there (min = max), as crawld's pool runs at its cap when the limit allows.
    ...(maxArg ? { minConcurrency: Number(maxArg), maxConcurrency: Number(maxArg) } : {}),
    async requestHandler({ page, enqueueLinks }) {
      await page.waitForSelector('span.price', { timeout: 10_000 }).catch(() => undefined);
      const [title, price] = await Promise.all([
        page.title(),
        page
          .locator('span.price')
          .first()
          .textContent({ timeout: 1000 })
          .catch(() => null),
      ]);
      if (price !== null && title !== '') withPrice++;
      await enqueueLinks({ strategy: 'same-origin' });
      done++;
    },
    failedRequestHandler() {
      failed++;
    },
  },
  config,
);
const t0 = performance.now();
await crawler.run([`${origin}/`]);
const secs = (performance.now() - t0) / 1000;
console.log(
  `RESULT ${JSON.stringify({
    tool: 'crawlee-playwright',
    pages: done,
    withPrice,
    failed,
    wall_s: +secs.toFixed(3),
    pages_per_s: +(done / secs).toFixed(1),
  })}`,
);
process.exit(0);
