import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { CrawlEmitter } from '../core/events.js';

/** Sink names (Sink.name) that batch and so report these metrics. */
const BATCHING_SINKS = new Set(['postgres', 'webhook']);
const BATCH_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * The sinks' metrics: records written to each sink, and the crawld_sink_* metrics of buffering
 * sinks (PostgreSQL, webhook), from their events. `sink` is the sink's kind, never its URL or table.
 */
export function registerSinkMetrics(
  events: CrawlEmitter,
  registry: Registry,
  sinks: readonly string[] = [],
): void {
  const r = [registry];
  const writes = new Counter({
    name: 'crawld_sink_writes_total',
    help: 'Records written to a sink.',
    labelNames: ['sink'],
    registers: r,
  });
  const written = new Counter({
    name: 'crawld_sink_records_written_total',
    help: 'Records stored by a batching sink: PostgreSQL rows inserted (or found present), webhook deliveries.',
    labelNames: ['sink'],
    registers: r,
  });
  const batches = new Counter({
    name: 'crawld_sink_batches_total',
    help: 'Batches a sink stored (one INSERT, one delivered webhook POST).',
    labelNames: ['sink'],
    registers: r,
  });
  const duration = new Histogram({
    name: 'crawld_sink_batch_duration_seconds',
    help: 'Time to store a batch, retries included.',
    labelNames: ['sink'],
    buckets: BATCH_BUCKETS,
    registers: r,
  });
  const depth = new Gauge({
    name: 'crawld_sink_buffer_depth',
    help: 'Records waiting in a sink to be stored (PostgreSQL buffer, webhook deliveries in progress).',
    labelNames: ['sink'],
    registers: r,
  });
  const errors = new Counter({
    name: 'crawld_sink_errors_total',
    help: 'Failed sink write attempts, by reason (transient and permanent database errors, http_NNN, connection).',
    labelNames: ['sink', 'reason'],
    registers: r,
  });
  for (const sink of sinks) writes.inc({ sink }, 0);
  // The configured batching sinks' series exist from the first scrape, at 0.
  for (const sink of sinks.filter((s) => BATCHING_SINKS.has(s))) {
    written.inc({ sink }, 0);
    batches.inc({ sink }, 0);
    duration.zero({ sink });
    depth.set({ sink }, 0);
  }
  events.on('sinkWrite', (e) => writes.inc({ sink: e.sink }, e.records));
  events.on('sinkBatch', (e) => {
    written.inc({ sink: e.sink }, e.records);
    batches.inc({ sink: e.sink });
    duration.observe({ sink: e.sink }, e.durationMs / 1000);
  });
  events.on('sinkBuffer', (e) => depth.set({ sink: e.sink }, e.depth));
  events.on('sinkError', (e) => errors.inc({ sink: e.sink, reason: e.reason }));
}
