import { Counter, Gauge, type Registry } from 'prom-client';
import type { CrawlEmitter } from '../core/events.js';

const OUTCOMES = ['stored', 'rejected'] as const;
const STORE_OPS = ['load', 'write', 'sync'] as const;

/**
 * The cookie jars' metrics: by job (a config id, bounded), never by host or cookie name, and
 * never a value. Every series of a known job from the first scrape.
 */
export function registerCookieMetrics(
  events: CrawlEmitter,
  registry: Registry,
  jars: (() => Iterable<readonly [string, number]>) | undefined,
): (jobId: string) => void {
  const r = [registry];
  const received = new Counter({
    name: 'crawld_cookies_received_total',
    help: 'Set-Cookie lines received by a job with a cookie jar: stored, or rejected (public suffix, another domain, over the size limits, malformed).',
    labelNames: ['crawl_job', 'outcome'],
    registers: r,
  });
  const errors = new Counter({
    name: 'crawld_cookie_store_errors_total',
    help: 'Failures of the store that keeps the cookie jars (load at start, write, reading other daemons changes); the jar goes on from memory.',
    labelNames: ['op'],
    registers: r,
  });
  new Gauge({
    name: 'crawld_cookie_jar_cookies',
    help: 'Cookies held in a job cookie jar.',
    labelNames: ['crawl_job'],
    registers: r,
    collect() {
      for (const [job, n] of jars?.() ?? []) this.set({ crawl_job: job }, n);
    },
  });
  for (const op of STORE_OPS) errors.inc({ op }, 0);
  events.on('cookie', (e) => received.inc({ crawl_job: e.jobId, outcome: e.outcome }));
  events.on('cookieStoreError', (e) => errors.inc({ op: e.op }));
  return (jobId) => {
    for (const outcome of OUTCOMES) received.inc({ crawl_job: jobId, outcome }, 0);
  };
}
