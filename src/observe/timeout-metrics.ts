import { Counter, Gauge, type Registry } from 'prom-client';
import type { CrawlEmitter } from '../core/events.js';
import type { TimeoutPhase } from '../core/timeout-phase.js';
import * as known from './label-values.js';
import { type HostSeries, zero } from './series.js';

/** What the timeout gauges read at scrape time (MetricSources). */
export interface TimeoutSources {
  /** The timeout each phase of a request is held to where nothing is learned: the configured one. */
  timeoutCeilings?(): Readonly<Record<TimeoutPhase, number>>;
  /** [host, phase, ms] of each learned timeout in force (core/host-timeout.ts). */
  learnedTimeouts?(): Iterable<readonly [string, TimeoutPhase, number]>;
}

/** The fetch errors that are timeouts, by the phase they cut and the timeout that did. */
const TIMEOUT_OF_REASON: Readonly<Record<string, { phase: string; timeout: 'configured' }>> = {
  connect_timeout: { phase: 'connect', timeout: 'configured' },
  headers_timeout: { phase: 'headers', timeout: 'configured' },
  body_timeout: { phase: 'body', timeout: 'configured' },
  total_timeout: { phase: 'total', timeout: 'configured' },
  render_timeout: { phase: 'render', timeout: 'configured' },
};

/**
 * Timeouts and hedges (issue 44): requests given up at a timeout by phase and by which timeout
 * (the host's learned one, or the configured one), the timeout each named host is held to now,
 * and hedged requests by which answered first.
 */
export function registerTimeoutMetrics(
  events: CrawlEmitter,
  registry: Registry,
  hosts: HostSeries,
  sources: TimeoutSources,
): void {
  const r = [registry];
  const timeouts = new Counter({
    name: 'crawld_request_timeouts_total',
    help: "Requests given up at a timeout, by phase (connect, headers, body, render, total) and timeout: learned (the host's, fetch.adaptiveTimeout: the request hung) or configured.",
    labelNames: ['phase', 'timeout'],
    registers: r,
  });
  const hedges = new Counter({
    name: 'crawld_hedged_requests_total',
    help: "Requests sent a second time after waiting past their host's p95 (fetch.hedge), by result: won (the second answered first) or lost.",
    labelNames: ['result'],
    registers: r,
  });
  new Gauge({
    name: 'crawld_host_timeout_seconds',
    help: 'The timeout a request of each host is held to now, by phase: its learned one, or the configured one until it is learned (the largest over hosts labelled other).',
    labelNames: ['host', 'phase'],
    registers: r,
    collect() {
      this.reset();
      const ceilings = sources.timeoutCeilings?.();
      if (!ceilings) return;
      const max = new Map<string, number>();
      for (const [host, phase, ms] of sources.learnedTimeouts?.() ?? []) {
        const key = `${hosts.label(host)}\n${phase}`;
        max.set(key, Math.max(max.get(key) ?? 0, ms));
      }
      // Every named host (and other) has each phase: a host not learned waits the configured one.
      for (const label of hosts.labels())
        for (const phase of known.TIMEOUT_PHASES)
          this.set({ host: label, phase }, (max.get(`${label}\n${phase}`) ?? ceilings[phase]) / 1000);
    },
  });

  for (const timeout of known.TIMEOUT_KINDS) {
    const phases = timeout === 'learned' ? known.TIMEOUT_PHASES : known.CONFIGURED_TIMEOUT_PHASES;
    for (const phase of phases) timeouts.inc({ phase, timeout }, 0);
  }
  zero(hedges, 'result', known.HEDGE_RESULTS);
  events.on('fetchError', (e) => {
    if (e.reason === 'hung' && e.phase !== undefined) timeouts.inc({ phase: e.phase, timeout: 'learned' });
    const configured = TIMEOUT_OF_REASON[e.reason];
    if (configured) timeouts.inc(configured);
  });
  events.on('hedge', (e) => hedges.inc({ result: e.result }));
}
