import { Counter, type Registry } from 'prom-client';
import { ROBOTS_OUTCOMES } from '../adapters/robots/robots-cache.js';
import type { CrawlEmitter } from '../core/events.js';

/** crawld_robots_fetches_total{outcome}: every outcome present (0) from the first scrape. */
export function registerRobotsMetrics(events: CrawlEmitter, registry: Registry): void {
  const fetches = new Counter({
    name: 'crawld_robots_fetches_total',
    help: 'robots.txt fetches by outcome (RFC 9309): parsed, unavailable (4xx: all allowed), too_many_redirects (all allowed), rate_limited / server_error / network_error / timeout (host unreachable), blocked_address.',
    labelNames: ['outcome'],
    registers: [registry],
  });
  for (const outcome of ROBOTS_OUTCOMES) fetches.inc({ outcome }, 0);
  events.on('robotsFetch', (e) => fetches.inc({ outcome: e.outcome }));
}
