import { TypedEmitter } from '../../src/core/events.js';
import { createMetrics, type KnownLabels } from '../../src/observe/metrics.js';
import type { FrontierStats } from '../../src/ports/frontier.js';

/** Series Prometheus itself attaches to every target: valid in any query. */
const SCRAPE_SERIES = ['up', 'scrape_duration_seconds', 'scrape_samples_scraped'];

/**
 * Every series name the daemon's registry can expose (crawld metrics and prom-client's
 * default process/nodejs metrics, histograms expanded to _bucket/_sum/_count), plus the
 * series Prometheus adds at scrape time. Built from createMetrics itself so that a metric
 * renamed in src/observe/ invalidates every dashboard and alert still using it.
 */
export async function knownSeriesNames(): Promise<Set<string>> {
  const { registry } = testMetrics();
  const names = new Set<string>(SCRAPE_SERIES);
  // MetricType is an enum of the type names; compare as strings.
  for (const m of await registry.getMetricsAsJSON()) {
    const type = String(m.type);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(`${m.name}${s}`);
    else if (type === 'summary') for (const s of ['', '_sum', '_count']) names.add(`${m.name}${s}`);
    else names.add(m.name);
  }
  return names;
}

/** A daemon-less metrics registry: idle sources, frontier stats from `byPriority()`. */
export function testMetrics(known: KnownLabels = {}, byPriority: () => Record<string, number> = () => ({})) {
  const stats = async (): Promise<FrontierStats> => {
    const pendingByPriority = byPriority();
    const pending = Object.values(pendingByPriority).reduce((a, b) => a + b, 0);
    return { pending, delayed: 0, leased: 0, done: 0, dead: 0, pendingByPriority };
  };
  return createMetrics(
    new TypedEmitter(),
    {
      frontierStats: stats,
      inflight: () => 0,
      globalLimit: () => 1,
      hosts: () => [],
      breakers: () => [],
      paused: () => false,
      ready: () => true,
    },
    { version: 'test' },
    known,
  );
}
