import { Counter, Gauge, type Registry } from 'prom-client';
import type { CrawlEmitter } from '../core/events.js';

const PATHS = ['http', 'browser', 'both'] as const;
const DECISIONS = ['http', 'browser'] as const;
const FOUND_BY = ['sample', 'recheck', 'missing_field'] as const;

/**
 * `render: { kind: auto }` metrics (docs/browser.md): how pages were fetched, hosts decided, and
 * what the re-checks found. Never a host or URL label; every series present from the first scrape.
 */
export function registerRenderMetrics(
  events: CrawlEmitter,
  registry: Registry,
  decided: (() => Iterable<readonly [string, string, 'http' | 'browser']>) | undefined,
): void {
  const r = [registry];
  const pages = new Counter({
    name: 'crawld_render_pages_total',
    help: 'Pages of render kind auto jobs by how they were fetched: http, browser, or both (a sample or re-check, or a page http left incomplete).',
    labelNames: ['path'],
    registers: r,
  });
  const decisions = new Counter({
    name: 'crawld_render_decisions_total',
    help: 'Hosts of render kind auto jobs decided http or browser (by this daemon or, shared, another).',
    labelNames: ['decision'],
    registers: r,
  });
  const disagreements = new Counter({
    name: 'crawld_render_disagreements_total',
    help: 'Pages where http missed what the browser found, by what found it: sample, recheck (one page in recheckEvery), missing_field (a page of an http host without a required field).',
    labelNames: ['found_by'],
    registers: r,
  });
  new Gauge({
    name: 'crawld_render_hosts',
    help: 'Hosts of render kind auto jobs by their decision.',
    labelNames: ['decision'],
    registers: r,
    collect() {
      const n = { http: 0, browser: 0 };
      for (const [, , d] of decided?.() ?? []) n[d]++;
      for (const d of DECISIONS) this.set({ decision: d }, n[d]);
    },
  });
  for (const path of PATHS) pages.inc({ path }, 0);
  for (const decision of DECISIONS) decisions.inc({ decision }, 0);
  for (const found_by of FOUND_BY) disagreements.inc({ found_by }, 0);
  events.on('renderPath', (e) => pages.inc({ path: e.path }));
  events.on('renderDecision', (e) => decisions.inc({ decision: e.decision }));
  events.on('renderDisagreement', (e) => disagreements.inc({ found_by: e.foundBy }));
}
