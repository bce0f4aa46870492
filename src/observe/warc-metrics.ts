import { Counter, Gauge, type Registry } from 'prom-client';
import type { CrawlEmitter } from '../core/events.js';
import { WARC_RECORD_TYPES } from './label-values.js';

/** The WARC sink's metrics (docs/archives.md): records by type, bytes, files, the open file. */
export function registerWarcMetrics(events: CrawlEmitter, registry: Registry): void {
  const r = [registry];
  const records = new Counter({
    name: 'crawld_warc_records_total',
    help: 'WARC records written, by WARC-Type.',
    labelNames: ['type'],
    registers: r,
  });
  const bytes = new Counter({
    name: 'crawld_warc_bytes_total',
    help: 'Bytes written to WARC files (gzip members, warcinfo included).',
    registers: r,
  });
  const files = new Counter({
    name: 'crawld_warc_files_closed_total',
    help: 'WARC files closed and renamed, with their CDXJ index (at rollover, on stop, and at start for files a crash left open).',
    registers: r,
  });
  const open = new Gauge({
    name: 'crawld_warc_open_file_bytes',
    help: 'Size of the WARC file being written (0 when none is open).',
    registers: r,
  });
  for (const type of WARC_RECORD_TYPES) records.inc({ type }, 0);
  bytes.inc(0);
  files.inc(0);
  open.set(0);
  events.on('warcRecords', (e) => {
    let n = 0;
    for (const r of e.records) {
      records.inc({ type: r.type });
      n += r.bytes;
    }
    bytes.inc(n);
  });
  events.on('warcFileClosed', () => files.inc());
  events.on('warcOpenFile', (e) => open.set(e.bytes));
}
