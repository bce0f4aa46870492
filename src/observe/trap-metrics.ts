import { Counter, type Registry } from 'prom-client';
import type { CrawlEmitter } from '../core/events.js';
import * as known from './label-values.js';
import { zero } from './series.js';

/**
 * The trap defences (docs/traps.md): URLs not fetched and pages not expanded, by rule, and the
 * rules hosts taught. Labels are bounded (reason, kind); hosts are on the status page.
 */
export function registerTrapMetrics(events: CrawlEmitter, registry: Registry): void {
  const urls = new Counter({
    name: 'crawld_trap_urls_total',
    help: 'URLs not fetched (session_id, session_like, repeated_path, long_path) or fetched pages not expanded (near_duplicate_series, soft_404, repeated_path) by a trap rule.',
    labelNames: ['reason'],
    registers: [registry],
  });
  const learned = new Counter({
    name: 'crawld_trap_rules_learned_total',
    help: 'Trap rules hosts taught: a parameter that does not change the page, a URL pattern stopped as a near-duplicate series, a soft 404 probed.',
    labelNames: ['kind'],
    registers: [registry],
  });
  zero(urls, 'reason', known.TRAP_REASONS);
  zero(learned, 'kind', known.TRAP_LEARNED_KINDS);
  events.on('trap', (e) => urls.inc({ reason: e.reason }, e.urls));
  events.on('trapLearned', (e) => learned.inc({ kind: e.kind }));
}
