import { Counter, type Registry } from 'prom-client';
import type { CrawlEmitter } from '../core/events.js';
import * as known from './label-values.js';
import { zero } from './series.js';

/** The family's counters, by the names the wiring below uses. */
function pageCounters(registry: Registry) {
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter({ name, help, labelNames, registers: [registry] });
  return {
    pages: counter(
      'crawld_pages_total',
      'Tasks that ended: ok (record written), failed (dead-lettered), skipped.',
      ['crawl_job', 'result'],
    ),
    retries: counter('crawld_retries_total', 'Attempts that failed and were scheduled again, by reason.', [
      'reason',
    ]),
    deadLetters: counter('crawld_dead_letters_total', 'Tasks moved to the dead-letter queue, by reason.', [
      'reason',
    ]),
    skipped: counter(
      'crawld_skipped_total',
      'Tasks skipped without a result, by reason (robots, content_type).',
      ['reason'],
    ),
    deferred: counter(
      'crawld_deferred_total',
      'Tasks handed back without charging an attempt (breaker open, host paused, shutdown).',
      ['reason'],
    ),
    links: counter(
      'crawld_links_total',
      'Links found on pages, by what became of them: added, duplicate, dropped (frontier full), out_of_scope, over_cap (past scope.maxLinksPerPage).',
      ['result'],
    ),
    items: counter('crawld_items_extracted_total', 'Fields extracted.', ['crawl_job']),
    extractErrors: counter(
      'crawld_extraction_errors_total',
      'Field extraction problems (missing required field, regex or number mismatch).',
      ['crawl_job'],
    ),
    decodeFallbacks: counter(
      'crawld_decode_fallbacks_total',
      'Pages that declared a charset the WHATWG Encoding standard does not know, decoded with the default.',
    ),
    changes: counter(
      'crawld_changes_total',
      'Pages whose extracted fields changed since their previous crawl.',
      ['crawl_job'],
    ),
    // No labels, so both are present (at 0) from the first scrape.
    unchangedPages: counter(
      'crawld_unchanged_pages_total',
      'Conditional recrawls answered 304 Not Modified (no body downloaded).',
    ),
    unchangedBytes: counter(
      'crawld_unchanged_bytes_saved_total',
      "Estimated bytes a 304 saved: the decoded body size of the page's previous 200.",
    ),
    internalErrors: counter(
      'crawld_internal_errors_total',
      'Failures inside crawld (sink or frontier errors) while running a task.',
    ),
  };
}

/**
 * What became of the tasks: pages ended (ok, failed, skipped), retries, dead letters, skips,
 * deferrals, links found, fields extracted, changes and 304s, internal errors. Returns what
 * starts a job's series.
 */
export function registerPageMetrics(events: CrawlEmitter, registry: Registry): (jobId: string) => void {
  const {
    pages,
    retries,
    deadLetters,
    skipped,
    deferred,
    links,
    items,
    extractErrors,
    decodeFallbacks,
    changes,
    unchangedPages,
    unchangedBytes,
    internalErrors,
  } = pageCounters(registry);
  zero(retries, 'reason', known.RETRY_REASONS);
  zero(deadLetters, 'reason', known.DEAD_LETTER_REASONS);
  zero(skipped, 'reason', known.SKIP_REASONS);
  zero(deferred, 'reason', known.DEFER_REASONS);
  zero(links, 'result', known.LINK_RESULTS);
  internalErrors.inc(0);

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
  events.on('internalError', () => internalErrors.inc());
  events.on('change', (e) => changes.inc({ crawl_job: e.jobId }));
  events.on('unchanged', (e) => {
    unchangedPages.inc();
    unchangedBytes.inc(e.savedBytes);
  });

  return (jobId) => {
    zero(pages, 'result', known.PAGE_RESULTS, { crawl_job: jobId });
    for (const c of [items, extractErrors, changes]) zero(c, 'crawl_job', [jobId]);
  };
}
