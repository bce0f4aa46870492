// Bytes downloaded by a recrawl with conditional requests, against the first crawl.
// Crawls every page of the demo site (ETag + Last-Modified, `changeRate` of its pages change
// per cycle), moves the site one cycle on and the daemon's clock one recrawl interval on, lets
// every page be recrawled, and prints the wire bytes of both cycles and their ratio.
// Usage: node bench/recrawl-bytes.mjs [PAGES=10000] [CHANGE_RATE=0.05]   (after npm run build)
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const dist = (p) => join(root, 'dist/src', p);
if (!existsSync(dist('cli.js'))) {
  console.error('dist/ missing: run `npm run build` first');
  process.exit(2);
}
const { createDaemon } = await import(dist('daemon/daemon.js'));
const { validateConfig } = await import(dist('config/config.js'));
const { createLogger } = await import(dist('observe/logger.js'));
const { systemClock } = await import(dist('core/clock.js'));
const { startDemoSite } = await import(dist('demo/site.js'));

const pages = Number(process.argv[2] ?? 10_000);
const changeRate = Number(process.argv[3] ?? 0.05);
const INTERVAL_MS = 3_600_000;

const site = await startDemoSite({ pages, changeRate });
const dir = mkdtempSync(join(tmpdir(), 'crawld-recrawl-bench-'));
// Real timers, but now() can be moved on by a recrawl interval at once.
let offset = 0;
const clock = { ...systemClock, now: () => Date.now() + offset };
const config = validateConfig({
  dataDir: dir,
  fetch: { allowAddresses: [`127.0.0.1:${site.port}`] },
  politeness: { minDelayMs: 0 },
  jobs: [
    {
      id: 'bench',
      seeds: [`${site.url}/`],
      robots: false,
      recrawlIntervalMs: INTERVAL_MS,
      extract: {
        fields: { title: { selector: 'h1.title' }, price: { selector: 'span.price', type: 'number' } },
      },
    },
  ],
});
const daemon = await createDaemon(config, {
  once: false,
  clock,
  logger: createLogger({ level: 'error', instanceId: 'bench', silent: true }),
});
const cycles = [
  { bytes: 0, pages: 0, status: {} },
  { bytes: 0, pages: 0, status: {} },
];
let cycle = 0;
daemon.events.on('fetched', (e) => {
  const c = cycles[cycle];
  c.bytes += e.wireBytes;
  c.status[e.status] = (c.status[e.status] ?? 0) + 1;
});
let done = 0;
let onDone = () => {};
daemon.events.on('pageDone', () => {
  done++;
  cycles[cycle].pages++;
  onDone();
});
const until = (n) =>
  new Promise((r) => {
    onDone = () => done >= n && r();
    onDone();
  });

const t0 = performance.now();
const running = daemon.run();
await until(pages);
const t1 = performance.now();
cycle = 1;
site.setPriceEpoch(1);
offset += INTERVAL_MS + 1_000;
await until(2 * pages);
const t2 = performance.now();
await daemon.stop();
await running;
await site.close();
rmSync(dir, { recursive: true, force: true });

const changed = site.stats().pagesServed - pages;
console.log(`pages ${pages}, change rate ${changeRate} (${changed} pages changed and re-sent)`);
for (const [i, c] of cycles.entries())
  console.log(
    `cycle ${i + 1}: ${c.pages} pages, ${c.bytes} bytes on the wire, statuses ${JSON.stringify(c.status)}, ${((i === 0 ? t1 - t0 : t2 - t1) / 1000).toFixed(1)} s`,
  );
console.log(`cycle 2 / cycle 1 bytes: ${((100 * cycles[1].bytes) / cycles[0].bytes).toFixed(2)} %`);
