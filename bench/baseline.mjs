// The physical-limit baseline: an undici Pool at fixed concurrency, BFS with a Set for dedupe,
// extracting title, price and links with cheerio on its htmlparser2 path — the same work
// crawld does on the demo site, without the frontier, control plane, sinks or metrics.
// Usage: node bench/baseline.mjs ORIGIN N CONCURRENCY
import * as cheerio from 'cheerio';
import { Pool } from 'undici';

const [origin = 'http://127.0.0.1:8300', nArg = '20000', cArg = '64'] = process.argv.slice(2);
const N = Number(nArg);
const C = Number(cArg);
const pool = new Pool(origin, { connections: C, pipelining: 1, keepAliveTimeout: 60_000 });
const seen = new Set(['/']);
const queue = ['/'];
let qi = 0;
let active = 0;
let done = 0;
let errors = 0;
let checksum = 0;

function extract(html, path) {
  const $ = cheerio.load(html, { xml: { xmlMode: false } });
  const title = $('h1.title').text().trim();
  const price = $('span.price').text().trim();
  checksum += title.length + price.length;
  const links = [];
  $('a[href]').each((_, el) => {
    const href = $(el).attr('href');
    if (href) links.push(new URL(href, origin + path).pathname);
  });
  return links;
}

const t0 = performance.now();
await new Promise((resolve) => {
  const fetchOne = async (path) => {
    try {
      const { statusCode, body } = await pool.request({ path, method: 'GET' });
      const html = await body.text();
      if (statusCode !== 200) {
        errors++;
        return;
      }
      for (const u of extract(html, path)) {
        if (!seen.has(u)) {
          seen.add(u);
          queue.push(u);
        }
      }
      done++;
    } catch {
      errors++;
    }
  };
  const pump = () => {
    while (active < C && qi < queue.length) {
      active++;
      fetchOne(queue[qi++]).finally(() => {
        active--;
        pump();
      });
    }
    if (active === 0 && qi === queue.length) resolve();
  };
  pump();
});
const secs = (performance.now() - t0) / 1000;
await pool.close();
const usage = process.resourceUsage();
console.log(
  `RESULT ${JSON.stringify({
    tool: 'baseline-undici-cheerio-h2',
    concurrency: C,
    N,
    pages: done,
    errors,
    crawl_s: +secs.toFixed(3),
    process_s: +process.uptime().toFixed(3),
    pages_per_s: +(done / process.uptime()).toFixed(1),
    peak_rss_mb: +(usage.maxRSS / 1024).toFixed(1),
    checksum,
  })}`,
);
