import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { CrawlEmitter } from '../core/events.js';
import type { FrontierStats } from '../ports/frontier.js';
import { registerBrowserMetrics } from './browser-metrics.js';
import { registerCookieMetrics } from './cookie-metrics.js';
import { HostLabels } from './host-labels.js';
import * as known from './label-values.js';
import { registerRenderMetrics } from './render-metrics.js';
import { registerRobotsMetrics } from './robots-metrics.js';
import { registerSinkMetrics } from './sink-metrics.js';

/** What the metrics read at scrape time (gauges that mirror state rather than count events). */
export interface MetricSources {
  frontierStats(): Promise<FrontierStats>;
  inflight(): number;
  globalLimit(): number;
  /** Per-host [host, limit, inflight]. */
  hosts(): Iterable<readonly [string, number, number]>;
  /** Per-host breaker state: 0 closed, 1 half-open, 2 open. */
  breakers(): Iterable<readonly [string, number]>;
  paused(): boolean;
  ready(): boolean;
  /** How many proxies are configured (labels 0..n-1 of crawld_proxy_requests_total). */
  proxies?(): number;
  /** [job, cookies held] of each job's cookie jar. */
  cookieJars?(): Iterable<readonly [string, number]>;
  /** [job, host, decision] of each decided host of render kind auto jobs. */
  renderHosts?(): Iterable<readonly [string, string, 'http' | 'browser']>;
}

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const SIZE_BUCKETS = [1024, 4096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304, 16_777_216];

function statusClass(status: number): string {
  return status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'other';
}

/** Label values the config knows at start-up (and on reload, through Metrics.addJob). */
export interface KnownLabels {
  jobs?: readonly string[];
  sinks?: readonly string[];
  /** Priorities tasks are enqueued at, so crawld_frontier_pending has a 0 series for each. */
  priorities?: readonly number[];
}

/**
 * Every crawld metric, in one place (docs/metrics.md lists them). One registry per daemon,
 * never prom-client's global one. Counters subscribe to the crawl events; gauges are read
 * from the sources when Prometheus scrapes. A URL is never a label; hosts are bounded.
 */
export function createMetrics(
  events: CrawlEmitter,
  sources: MetricSources,
  build: { version: string },
  config: KnownLabels = {},
) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 });
  const hosts = new HostLabels();
  const r = [registry];

  new Gauge({
    name: 'crawld_build_info',
    help: 'Build information; always 1.',
    labelNames: ['version', 'node_version'],
    registers: r,
  }).set({ version: build.version, node_version: process.version }, 1);

  const requests = new Counter({
    name: 'crawld_requests_total',
    help: 'HTTP requests that got a response, by host and status class.',
    labelNames: ['host', 'status_class'],
    registers: r,
  });
  const fetchErrors = new Counter({
    name: 'crawld_fetch_errors_total',
    help: 'Requests that got no usable response, by host and reason (timeout, connection, body_too_large, ...).',
    labelNames: ['host', 'reason'],
    registers: r,
  });
  const duration = new Histogram({
    name: 'crawld_request_duration_seconds',
    help: 'Whole request duration, redirects and body included.',
    labelNames: ['host'],
    buckets: DURATION_BUCKETS,
    registers: r,
  });
  const jobDuration = new Histogram({
    name: 'crawld_job_request_duration_seconds',
    help: 'Whole request duration by crawl job (the config job id).',
    labelNames: ['crawl_job'],
    buckets: DURATION_BUCKETS,
    registers: r,
  });
  const ttfb = new Histogram({
    name: 'crawld_request_ttfb_seconds',
    help: 'Time to response headers of the final hop.',
    buckets: DURATION_BUCKETS,
    registers: r,
  });
  const size = new Histogram({
    name: 'crawld_response_size_bytes',
    help: 'Decoded response body size.',
    buckets: SIZE_BUCKETS,
    registers: r,
  });
  const downloaded = new Counter({
    name: 'crawld_downloaded_bytes_total',
    help: 'Bytes received on the wire (compressed).',
    labelNames: ['host'],
    registers: r,
  });
  const pages = new Counter({
    name: 'crawld_pages_total',
    help: 'Tasks that ended: ok (record written), failed (dead-lettered), skipped.',
    labelNames: ['crawl_job', 'result'],
    registers: r,
  });
  const retries = new Counter({
    name: 'crawld_retries_total',
    help: 'Attempts that failed and were scheduled again, by reason.',
    labelNames: ['reason'],
    registers: r,
  });
  const deadLetters = new Counter({
    name: 'crawld_dead_letters_total',
    help: 'Tasks moved to the dead-letter queue, by reason.',
    labelNames: ['reason'],
    registers: r,
  });
  const skipped = new Counter({
    name: 'crawld_skipped_total',
    help: 'Tasks skipped without a result, by reason (robots, content_type).',
    labelNames: ['reason'],
    registers: r,
  });
  const deferred = new Counter({
    name: 'crawld_deferred_total',
    help: 'Tasks handed back without charging an attempt (breaker open, host paused, shutdown).',
    labelNames: ['reason'],
    registers: r,
  });
  const links = new Counter({
    name: 'crawld_links_total',
    help: 'Links found on pages, by what became of them: added, duplicate, dropped (frontier full), out_of_scope, over_cap (past scope.maxLinksPerPage).',
    labelNames: ['result'],
    registers: r,
  });
  const items = new Counter({
    name: 'crawld_items_extracted_total',
    help: 'Fields extracted.',
    labelNames: ['crawl_job'],
    registers: r,
  });
  const extractErrors = new Counter({
    name: 'crawld_extraction_errors_total',
    help: 'Field extraction problems (missing required field, regex or number mismatch).',
    labelNames: ['crawl_job'],
    registers: r,
  });
  const decodeFallbacks = new Counter({
    name: 'crawld_decode_fallbacks_total',
    help: 'Pages that declared a charset the WHATWG Encoding standard does not know, decoded with the default.',
    registers: r,
  });
  const sinkWrites = new Counter({
    name: 'crawld_sink_writes_total',
    help: 'Records written to a sink.',
    labelNames: ['sink'],
    registers: r,
  });
  const throttled = new Counter({
    name: 'crawld_rate_limit_waits_total',
    help: 'Times a ready request was held back by a token bucket (rate_limit) or a per-host delay (politeness).',
    labelNames: ['host', 'reason'],
    registers: r,
  });
  const throttledSeconds = new Counter({
    name: 'crawld_rate_limit_wait_seconds_total',
    help: 'Time requests were told to wait by rate limits and politeness delays.',
    labelNames: ['reason'],
    registers: r,
  });
  const changes = new Counter({
    name: 'crawld_changes_total',
    help: 'Pages whose extracted fields changed since their previous crawl.',
    labelNames: ['crawl_job'],
    registers: r,
  });
  // No labels, so both are present (at 0) from the first scrape.
  const unchangedPages = new Counter({
    name: 'crawld_unchanged_pages_total',
    help: 'Conditional recrawls answered 304 Not Modified (no body downloaded).',
    registers: r,
  });
  const unchangedBytes = new Counter({
    name: 'crawld_unchanged_bytes_saved_total',
    help: "Estimated bytes a 304 saved: the decoded body size of the page's previous 200.",
    registers: r,
  });
  const proxyRequests = new Counter({
    name: 'crawld_proxy_requests_total',
    help: 'Requests sent through each proxy (by index in the config), by result: ok, proxy_error, proxy_auth.',
    labelNames: ['proxy', 'result'],
    registers: r,
    collect() {
      // Every configured proxy's series from the first scrape.
      for (let i = 0; i < (sources.proxies?.() ?? 0); i++)
        for (const result of ['ok', 'proxy_error', 'proxy_auth']) this.inc({ proxy: String(i), result }, 0);
    },
  });
  const internalErrors = new Counter({
    name: 'crawld_internal_errors_total',
    help: 'Failures inside crawld (sink or frontier errors) while running a task.',
    registers: r,
  });

  new Gauge({
    name: 'crawld_inflight_requests',
    help: 'Requests in flight now.',
    registers: r,
    collect() {
      this.set(sources.inflight());
    },
  });
  new Gauge({
    name: 'crawld_concurrency_limit',
    help: 'Global limit of requests in flight: concurrency.global, lower while the event loop is saturated.',
    registers: r,
    collect() {
      this.set(sources.globalLimit());
    },
  });
  new Gauge({
    name: 'crawld_host_concurrency_limit',
    help: 'Adaptive concurrency limit of each host (hosts beyond the named ones summed as other).',
    labelNames: ['host'],
    registers: r,
    collect() {
      this.reset();
      for (const [h, limit] of sources.hosts()) this.inc({ host: hosts.label(h) }, limit);
    },
  });
  new Gauge({
    name: 'crawld_host_inflight_requests',
    help: 'Requests in flight per host.',
    labelNames: ['host'],
    registers: r,
    collect() {
      this.reset();
      for (const [h, , inflight] of sources.hosts()) this.inc({ host: hosts.label(h) }, inflight);
    },
  });
  new Gauge({
    name: 'crawld_breaker_state',
    help: 'Circuit breaker state per host: 0 closed, 1 half-open, 2 open (max over hosts labelled other).',
    labelNames: ['host'],
    registers: r,
    collect() {
      this.reset();
      const max = new Map<string, number>();
      for (const [h, s] of sources.breakers()) {
        const l = hosts.label(h);
        max.set(l, Math.max(max.get(l) ?? 0, s));
      }
      for (const [l, s] of max) this.set({ host: l }, s);
    },
  });
  // One stats query per scrape, shared by the frontier gauges: each awaits it in its own
  // collect (prom-client collects all metrics concurrently, so setting them from another
  // gauge's collect would expose the previous scrape's values, and nothing on the first).
  let statsQuery: Promise<FrontierStats | undefined> | undefined;
  const frontierStats = (): Promise<FrontierStats | undefined> => {
    statsQuery ??= sources
      .frontierStats()
      .catch(() => undefined)
      .finally(() => {
        statsQuery = undefined;
      });
    return statsQuery;
  };
  const priorities = new Set((config.priorities ?? [0]).map(String));
  new Gauge({
    name: 'crawld_frontier_pending',
    help: 'Tasks waiting in the frontier (ready and delayed), by priority.',
    labelNames: ['priority'],
    registers: r,
    async collect() {
      const s = await frontierStats();
      if (!s) return;
      // Every priority ever seen stays, at 0 when empty: an empty queue is data.
      for (const p of priorities) this.set({ priority: p }, 0);
      for (const [p, n] of Object.entries(s.pendingByPriority)) {
        priorities.add(p);
        this.set({ priority: p }, n);
      }
    },
  });
  const frontierGauge = (name: string, help: string, read: (s: FrontierStats) => number) =>
    new Gauge({
      name,
      help,
      registers: r,
      async collect() {
        const s = await frontierStats();
        if (s) this.set(read(s));
      },
    });
  frontierGauge(
    'crawld_frontier_delayed',
    'Pending tasks whose retry or recrawl time is in the future.',
    (s) => s.delayed,
  );
  frontierGauge('crawld_frontier_leased', 'Tasks leased by workers.', (s) => s.leased);
  frontierGauge('crawld_frontier_done', 'Tasks done.', (s) => s.done);
  frontierGauge('crawld_dead_letter_size', 'Tasks in the dead-letter queue.', (s) => s.dead);
  new Gauge({
    name: 'crawld_frontier_up',
    help: '1 when the last frontier stats query succeeded.',
    registers: r,
    async collect() {
      this.set((await frontierStats()) ? 1 : 0);
    },
  });
  new Gauge({
    name: 'crawld_paused',
    help: '1 while the crawl is paused through the admin API.',
    registers: r,
    collect() {
      this.set(sources.paused() ? 1 : 0);
    },
  });
  new Gauge({
    name: 'crawld_ready',
    help: '1 while the daemon is ready (frontier reachable, not draining).',
    registers: r,
    collect() {
      this.set(sources.ready() ? 1 : 0);
    },
  });

  // Every series with label values known in advance starts at 0 (src/observe/label-values.ts).
  const zero = <L extends string>(c: Counter<L>, label: L, values: readonly string[], fixed = {}) => {
    for (const v of values) c.inc({ ...fixed, [label]: v } as Record<L, string>, 0);
  };
  const namedHosts = new Set<string>();
  /** A host's series, at 0 for each known value, from the host's first task under its label. */
  const hostLabel = (host: string): string => {
    const label = hosts.observe(host);
    if (namedHosts.has(label)) return label;
    namedHosts.add(label);
    zero(requests, 'status_class', known.STATUS_CLASSES, { host: label });
    zero(fetchErrors, 'reason', known.FETCH_ERROR_REASONS, { host: label });
    zero(throttled, 'reason', known.WAIT_REASONS, { host: label });
    zero(downloaded, 'host', [label]);
    duration.zero({ host: label });
    return label;
  };
  const addCookieJob = registerCookieMetrics(events, registry, sources.cookieJars?.bind(sources));
  const addJob = (jobId: string): void => {
    addCookieJob(jobId);
    zero(pages, 'result', known.PAGE_RESULTS, { crawl_job: jobId });
    for (const c of [items, extractErrors, changes]) zero(c, 'crawl_job', [jobId]);
    jobDuration.zero({ crawl_job: jobId });
  };
  hostLabel(known.OTHER_HOST);
  for (const job of config.jobs ?? []) addJob(job);
  zero(retries, 'reason', known.RETRY_REASONS);
  zero(deadLetters, 'reason', known.DEAD_LETTER_REASONS);
  zero(skipped, 'reason', known.SKIP_REASONS);
  zero(deferred, 'reason', known.DEFER_REASONS);
  zero(throttledSeconds, 'reason', known.WAIT_REASONS);
  zero(links, 'result', known.LINK_RESULTS);
  zero(sinkWrites, 'sink', config.sinks ?? []);
  internalErrors.inc(0);
  ttfb.zero({});
  size.zero({});

  events.on('fetched', (e) => {
    const host = hostLabel(e.host);
    jobDuration.observe({ crawl_job: e.jobId }, e.durationMs / 1000);
    requests.inc({ host, status_class: statusClass(e.status) });
    duration.observe({ host }, e.durationMs / 1000);
    ttfb.observe(e.ttfbMs / 1000);
    size.observe(e.bytes);
    downloaded.inc({ host }, e.wireBytes);
  });
  events.on('fetchError', (e) => fetchErrors.inc({ host: hostLabel(e.host), reason: e.reason }));
  events.on('pageDone', (e) => {
    pages.inc({ crawl_job: e.jobId, result: 'ok' });
    items.inc({ crawl_job: e.jobId }, e.fields);
    if (e.extractErrors > 0) extractErrors.inc({ crawl_job: e.jobId }, e.extractErrors);
    if (e.decodeFallback) decodeFallbacks.inc();
  });
  events.on('retry', (e) => retries.inc({ reason: e.reason }));
  events.on('deadLettered', (e) => {
    pages.inc({ crawl_job: e.jobId, result: 'failed' });
    deadLetters.inc({ reason: e.reason });
  });
  events.on('skipped', (e) => {
    pages.inc({ crawl_job: e.jobId, result: 'skipped' });
    skipped.inc({ reason: e.reason });
  });
  events.on('deferred', (e) => deferred.inc({ reason: e.reason }));
  events.on('links', (e) => {
    links.inc({ result: 'added' }, e.added);
    links.inc({ result: 'duplicate' }, e.duplicates);
    links.inc({ result: 'dropped' }, e.dropped);
    links.inc({ result: 'out_of_scope' }, e.outOfScope);
    links.inc({ result: 'over_cap' }, e.overCap ?? 0);
  });
  events.on('sinkWrite', (e) => sinkWrites.inc({ sink: e.sink }, e.records));
  registerSinkMetrics(events, registry, config.sinks ?? []);
  registerRobotsMetrics(events, registry);
  registerBrowserMetrics(events, registry);
  registerRenderMetrics(events, registry, sources.renderHosts?.bind(sources));
  events.on('internalError', () => internalErrors.inc());
  events.on('throttled', (e) => {
    throttled.inc({ host: hosts.label(e.host), reason: e.reason });
    throttledSeconds.inc({ reason: e.reason }, e.delayMs / 1000);
  });
  events.on('change', (e) => changes.inc({ crawl_job: e.jobId }));
  events.on('proxy', (e) => proxyRequests.inc({ proxy: String(e.proxy), result: e.result }));
  events.on('unchanged', (e) => {
    unchangedPages.inc();
    unchangedBytes.inc(e.savedBytes);
  });

  return { registry, hosts, addJob };
}

export type Metrics = ReturnType<typeof createMetrics>;
