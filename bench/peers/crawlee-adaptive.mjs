// Crawlee 3's AdaptivePlaywrightCrawler on a mix of crawld demo shops (plain and `--js`), for
// bench/render-auto.mjs: the same extraction as crawld's job there (h1.title, span.price, after
// waiting for span.price; every same-hostname link), the system Chromium, in-memory storage,
// Crawlee's own defaults for everything adaptive (renderingTypeDetectionRatio 0.1, its
// logistic-regression RenderingTypePredictor over URL similarity, the default result comparator:
// deep equality of the pushed items) and for concurrency (autoscaled pool).
// In HTTP-only mode the context's waitForSelector throws when the selector is absent, so a page
// of a JS shop predicted static is run again in the browser (Crawlee's documented idiom).
// Usage: node crawlee-adaptive.mjs OUT.jsonl N CHROMIUM ORIGIN... Writes the records to OUT.jsonl
// ({url, title, price}) and prints `RESULT {json}`.
import { writeFileSync } from 'node:fs';
import { AdaptivePlaywrightCrawler, Configuration, log } from 'crawlee';
import { chromium } from 'playwright';

const [out, nArg, executablePath, ...origins] = process.argv.slice(2);
const N = Number(nArg);
log.setLevel(log.LEVELS.OFF);
const config = new Configuration({ persistStorage: false, logLevel: log.LEVELS.OFF });

let failed = 0;
const crawler = new AdaptivePlaywrightCrawler(
  {
    launchContext: {
      launcher: chromium,
      launchOptions: {
        executablePath,
        headless: true,
        // Playwright already passes --disable-background-networking, --disable-component-update
        // and the rest; names resolve nowhere on top of that (the shops are IP literals).
        args: ['--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.*'],
      },
    },
    navigationTimeoutSecs: 30,
    maxRequestsPerCrawl: N,
    async requestHandler({ request, waitForSelector, querySelector, pushData, enqueueLinks }) {
      await waitForSelector('span.price', 10_000);
      const title = (await querySelector('h1.title')).first().text();
      const price = (await querySelector('span.price')).first().text();
      await pushData({ url: request.loadedUrl ?? request.url, title, price });
      await enqueueLinks({ strategy: 'same-hostname' });
    },
    failedRequestHandler() {
      failed++;
    },
  },
  config,
);
const t0 = performance.now();
await crawler.run(origins.map((o) => `${o}/`));
const secs = (performance.now() - t0) / 1000;
const { items } = await crawler.getData();
writeFileSync(out, items.map((r) => JSON.stringify(r)).join('\n') + (items.length ? '\n' : ''));
const s = crawler.stats.state;
console.log(
  `RESULT ${JSON.stringify({
    tool: 'crawlee-adaptive',
    pages: items.length,
    failed,
    httpOnlyRuns: s.httpOnlyRequestHandlerRuns ?? 0,
    browserRuns: s.browserRequestHandlerRuns ?? 0,
    mispredictions: s.renderingTypeMispredictions ?? 0,
    wall_s: +secs.toFixed(3),
  })}`,
);
process.exit(0);
