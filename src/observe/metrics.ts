import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { CrawlEmitter } from '../core/events.js';
import type { FrontierStats } from '../ports/frontier.js';
import { registerBrowserMetrics } from './browser-metrics.js';
import { registerCookieMetrics } from './cookie-metrics.js';
import { registerFrontierMetrics } from './frontier-metrics.js';
import { HostLabels } from './host-labels.js';
import { registerHostMetrics } from './host-metrics.js';
import * as known from './label-values.js';
import { registerPageMetrics } from './page-metrics.js';
import { registerRenderMetrics } from './render-metrics.js';
import { registerRequestMetrics } from './request-metrics.js';
import { registerRobotsMetrics } from './robots-metrics.js';
import { HostSeries } from './series.js';
import { registerSinkMetrics } from './sink-metrics.js';
import { registerTimeoutMetrics, type TimeoutSources } from './timeout-metrics.js';
import { registerTrapMetrics } from './trap-metrics.js';
import { registerWarcMetrics } from './warc-metrics.js';

/** What the metrics read at scrape time (gauges that mirror state rather than count events). */
export interface MetricSources extends TimeoutSources {
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

/** Label values the config knows at start-up (and on reload, through Metrics.addJob). */
export interface KnownLabels {
  jobs?: readonly string[];
  sinks?: readonly string[];
  /** Priorities tasks are enqueued at, so crawld_frontier_pending has a 0 series for each. */
  priorities?: readonly number[];
}

/**
 * Every crawld metric (docs/metrics.md), one registry per daemon, never prom-client's global
 * one. A URL is never a label; hosts are bounded (HostLabels).
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
  const series = new HostSeries(hosts);
  const r = [registry];

  new Gauge({
    name: 'crawld_build_info',
    help: 'Build information; always 1.',
    labelNames: ['version', 'node_version'],
    registers: r,
  }).set({ version: build.version, node_version: process.version }, 1);
  const addJobs = [
    registerRequestMetrics(events, registry, series, sources.proxies?.bind(sources)),
    registerPageMetrics(events, registry),
    registerCookieMetrics(events, registry, sources.cookieJars?.bind(sources)),
  ];
  registerHostMetrics(events, registry, series, sources);
  registerTrapMetrics(events, registry);
  registerTimeoutMetrics(events, registry, series, sources);
  registerFrontierMetrics(registry, () => sources.frontierStats(), config.priorities);
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
  registerSinkMetrics(events, registry, config.sinks ?? []);
  registerRobotsMetrics(events, registry);
  registerBrowserMetrics(events, registry);
  registerRenderMetrics(events, registry, sources.renderHosts?.bind(sources));
  registerWarcMetrics(events, registry);

  // Every series with label values known in advance starts at 0 (src/observe/label-values.ts).
  series.start(known.OTHER_HOST);
  const addJob = (jobId: string): void => {
    for (const add of addJobs) add(jobId);
  };
  for (const job of config.jobs ?? []) addJob(job);

  return { registry, hosts, addJob };
}

export type Metrics = ReturnType<typeof createMetrics>;
