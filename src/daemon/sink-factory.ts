import { hostname } from 'node:os';
import { join } from 'node:path';
import { JsonlChangeSink } from '../adapters/sink/jsonl-change-sink.js';
import { JsonlSink } from '../adapters/sink/jsonl-sink.js';
import { WarcSink } from '../adapters/sink/warc/warc-sink.js';
import { WebhookChangeSink } from '../adapters/sink/webhook-change-sink.js';
import type { CrawldConfig } from '../config/config.js';
import type { CrawlEmitter } from '../core/events.js';
import type { ChangeSink } from '../ports/page-state.js';
import type { Sink, SinkObserver } from '../ports/sink.js';
import { VERSION } from '../version.js';
import type { ExchangeTaps } from './exchange-taps.js';

export function sinkObserver(events: CrawlEmitter): SinkObserver {
  return {
    batch: (e) => events.emit('sinkBatch', e),
    error: (e) => events.emit('sinkError', e),
    bufferDepth: (e) => events.emit('sinkBuffer', e),
  };
}

type WarcConfig = Extract<CrawldConfig['sinks'][number], { kind: 'warc' }>;

export interface ArchiveDeps {
  readonly instanceId: string;
  readonly taps: ExchangeTaps | undefined;
}

/** A WARC sink, its exchanges from the fetchers' tap, its reports as crawl events. */
function warcSink(
  s: WarcConfig,
  config: CrawldConfig,
  dataDir: string,
  events: CrawlEmitter,
  deps: ArchiveDeps,
) {
  const sink = new WarcSink({
    dir: s.dir ?? join(dataDir, 'warc'),
    prefix: s.prefix,
    instance: deps.instanceId,
    maxFileBytes: s.maxFileBytes,
    gzipLevel: s.gzipLevel,
    revisits: s.revisits,
    revisitMemory: s.revisitMemory,
    redactSecrets: s.redactSecrets,
    jobs: s.jobs,
    info: [
      ['software', `crawld/${VERSION}`],
      ['format', 'WARC File Format 1.1'],
      ['conformsTo', 'http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/'],
      ['isPartOf', (s.jobs ?? config.jobs.map((j) => j.id)).join(',')],
      ['hostname', hostname()],
      ['instance', deps.instanceId],
    ],
    observer: {
      records: (records) => events.emit('warcRecords', { records }),
      fileClosed: (f) =>
        events.emit('warcFileClosed', {
          file: f.name,
          records: f.records,
          bytes: f.bytes,
          recovered: f.recovered,
        }),
      openFileBytes: (bytes) => events.emit('warcOpenFile', { bytes }),
      error: (reason) => events.emit('sinkError', { sink: 'warc', reason }),
    },
  });
  deps.taps?.add(sink.tap);
  return sink;
}

export async function createSinks(
  config: CrawldConfig,
  dataDir: string,
  events: CrawlEmitter,
  archive: ArchiveDeps = { instanceId: 'crawld', taps: undefined },
): Promise<Sink[]> {
  const observer = sinkObserver(events);
  // pg loads only when a PostgreSQL sink is configured.
  const PostgresSink = config.sinks.some((s) => s.kind === 'postgres')
    ? (await import('../adapters/sink/postgres-sink.js')).PostgresSink
    : undefined;
  return config.sinks.map((s): Sink => {
    if (s.kind === 'jsonl') return new JsonlSink({ path: s.path ?? join(dataDir, 'results.jsonl') });
    if (s.kind === 'warc') return warcSink(s, config, dataDir, events, archive);
    return new PostgresSink!({
      url: s.url,
      table: s.table,
      batchSize: s.batchSize,
      flushIntervalMs: s.flushIntervalMs,
      maxBuffer: s.maxBuffer,
      onConflict: s.onConflict,
      retryBaseMs: s.retryBaseMs,
      retryMaxMs: s.retryMaxMs,
      // Leave the drain budget to the frontier and the rest of the shutdown.
      closeTimeoutMs: Math.max(1_000, config.shutdown.drainTimeoutMs),
      observer,
    });
  });
}

/** The sinks a job's records go to: those without a `jobs` filter and those naming the job. */
export function sinksForJob(
  config: CrawldConfig,
  sinks: readonly Sink[],
): (jobId: string) => readonly Sink[] {
  const byJob = new Map<string, readonly Sink[]>();
  return (jobId) => {
    let list = byJob.get(jobId);
    if (!list) {
      list = sinks.filter((_, i) => {
        const jobs = config.sinks[i]?.jobs;
        return jobs === undefined || jobs.includes(jobId);
      });
      byJob.set(jobId, list);
    }
    return list;
  };
}

export function createChangeSinks(config: CrawldConfig, dataDir: string, events: CrawlEmitter): ChangeSink[] {
  const observer = sinkObserver(events);
  return config.changeSinks.map((s): ChangeSink => {
    if (s.kind === 'jsonl') return new JsonlChangeSink({ path: s.path ?? join(dataDir, 'changes.jsonl') });
    return new WebhookChangeSink({
      url: s.url,
      headers: s.headers,
      maxAttempts: s.maxAttempts,
      backoffBaseMs: s.backoffBaseMs,
      backoffMaxMs: s.backoffMaxMs,
      timeoutMs: s.timeoutMs,
      maxConcurrent: s.maxConcurrent,
      minTimeMs: s.minTimeMs,
      observer,
    });
  });
}

/** What a sink list looks like in a log line or on stderr: kinds and places, no credentials. */
export function describeSinks(config: CrawldConfig, dataDir: string): string {
  return config.sinks
    .map((s) => {
      if (s.kind === 'jsonl') return s.path ?? join(dataDir, 'results.jsonl');
      if (s.kind === 'warc') return `WARC ${s.dir ?? join(dataDir, 'warc')}`;
      const u = new URL(s.url);
      return `postgres://${u.host}${u.pathname} (table ${s.table})`;
    })
    .join(', ');
}

/**
 * At the drain deadline: sinks waiting on a database that is down stop retrying after their
 * close timeout, so the tasks stuck on them end and the shutdown goes on.
 */
export function beginClosingSinks(sinks: readonly Sink[]): void {
  for (const s of sinks) if (hasBeginClose(s)) s.beginClose();
}

function hasBeginClose(s: Sink): s is Sink & { beginClose(): void } {
  return typeof (s as Partial<{ beginClose: unknown }>).beginClose === 'function';
}
