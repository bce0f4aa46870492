import { Counter, Gauge, type Registry } from 'prom-client';
import type { CrawlEmitter } from '../core/events.js';
import * as known from './label-values.js';
import { type HostSeries, zero } from './series.js';

/** What the host gauges read at scrape time (MetricSources). */
interface HostSources {
  inflight(): number;
  globalLimit(): number;
  /** Per-host [host, limit, inflight]. */
  hosts(): Iterable<readonly [string, number, number]>;
  /** Per-host breaker state: 0 closed, 1 half-open, 2 open. */
  breakers(): Iterable<readonly [string, number]>;
}

/**
 * The control plane's state and waits: requests in flight, the global and per-host limits,
 * breaker states (read at scrape time), and the waits rate limits and politeness imposed.
 * Hosts beyond the named ones are summed as `other`.
 */
export function registerHostMetrics(
  events: CrawlEmitter,
  registry: Registry,
  hosts: HostSeries,
  sources: HostSources,
): void {
  const r = [registry];
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

  hosts.onLabel((host) => zero(throttled, 'reason', known.WAIT_REASONS, { host }));
  zero(throttledSeconds, 'reason', known.WAIT_REASONS);
  events.on('throttled', (e) => {
    throttled.inc({ host: hosts.label(e.host), reason: e.reason });
    throttledSeconds.inc({ reason: e.reason }, e.delayMs / 1000);
  });
}
