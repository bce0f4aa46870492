import { join } from 'node:path';
import { UndiciFetcher } from '../adapters/fetch/undici-fetcher.js';
import { decodeXml } from '../adapters/parse/charset.js';
import {
  MemorySitemapStateStore,
  SqliteSitemapStateStore,
} from '../adapters/sitemap/sitemap-state-stores.js';
import type { CrawldConfig } from '../config/config.js';
import type { JobRuntime } from '../engine/job/job-runtime.js';
import { SitemapSeeder } from '../engine/job/sitemap-seeder.js';
import type { Logger } from '../observe/logger.js';
import type { EnqueueRequest, EnqueueResult } from '../ports/frontier.js';
import type { ExchangeTaps } from './exchange-taps.js';
import { fetcherOptions } from './fetcher-options.js';

/** XML or text whatever the page filter says, and gzipped files (sitemap.xml.gz), not only Content-Encoding. */
const SITEMAP_TYPES = [
  'application/xml',
  'text/xml',
  'text/plain',
  'application/gzip',
  'application/x-gzip',
  'application/octet-stream',
  // Feeds, read as sitemaps (docs/sitemaps.md).
  'application/rss+xml',
  'application/atom+xml',
];

export interface SitemapRuntime {
  discoverAll(): Promise<void>;
  startRefresh(): void;
  close(): Promise<void>;
}

export interface SitemapDeps {
  readonly dataDir: string;
  readonly logger: Logger;
  readonly jobs: ReadonlyMap<string, JobRuntime>;
  readonly enqueue: (requests: readonly EnqueueRequest[]) => Promise<EnqueueResult>;
  /** The WARC sinks' exchange tap, when there is one: sitemaps are archived too. */
  readonly taps?: ExchangeTaps | undefined;
}

export function createSitemaps(config: CrawldConfig, deps: SitemapDeps): SitemapRuntime | undefined {
  const wanted = config.jobs.filter((j) => j.sitemaps !== undefined);
  if (wanted.length === 0) return undefined;
  const opts = fetcherOptions(config);
  const fetcher = new UndiciFetcher({
    ...opts,
    ...(deps.taps ? { tap: deps.taps.tap } : {}),
    acceptContentTypes: [...new Set([...opts.acceptContentTypes, ...SITEMAP_TYPES])],
  });
  const store =
    config.frontier.kind === 'memory'
      ? new MemorySitemapStateStore()
      : new SqliteSitemapStateStore(join(deps.dataDir, 'sitemaps.db'));
  const seeder = new SitemapSeeder({
    fetcher,
    decodeXml,
    store,
    enqueue: deps.enqueue,
    warn: (message, meta) => deps.logger.warn(message, meta),
  });
  const abort = new AbortController();
  const timers: NodeJS.Timeout[] = [];
  let opened: Promise<void> | undefined;
  const running = new Set<Promise<void>>();

  const discover = async (job: (typeof wanted)[number]) => {
    opened ??= store.open();
    await opened;
    const runtime = deps.jobs.get(job.id);
    const s = job.sitemaps;
    if (!runtime || !s || abort.signal.aborted) return;
    const result = await seeder.discover(
      { id: job.id, seeds: job.seeds, scope: runtime.scope, normalise: runtime.normalise },
      { ...s, priority: s.priority ?? job.seedPriority },
      abort.signal,
    );
    deps.logger.info('sitemaps read', { job: job.id, ...result });
  };
  // One discovery per job at a time: a slow sitemap must not pile up refreshes.
  const track = (job: (typeof wanted)[number], busy: { on: boolean }) => {
    if (busy.on) return;
    busy.on = true;
    const p = discover(job)
      .catch((err: unknown) => {
        deps.logger.error('sitemaps: discovery failed', { job: job.id, error: String(err) });
      })
      .finally(() => {
        busy.on = false;
        running.delete(p);
      });
    running.add(p);
  };
  const busy = new Map(wanted.map((j) => [j.id, { on: false }]));

  return {
    async discoverAll() {
      for (const job of wanted) track(job, busy.get(job.id)!);
      await Promise.all(running);
    },
    startRefresh() {
      for (const job of wanted) {
        const every = job.sitemaps?.refreshIntervalMs;
        if (every === undefined) continue;
        const t = setInterval(() => track(job, busy.get(job.id)!), every);
        t.unref();
        timers.push(t);
      }
    },
    async close() {
      for (const t of timers) clearInterval(t);
      abort.abort();
      await Promise.all(running);
      await fetcher.close();
      if (opened) await store.close();
    },
  };
}
