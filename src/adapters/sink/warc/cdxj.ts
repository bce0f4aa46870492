/** The CDXJ index of a closed WARC, as pywb's cdxj-indexer writes it. */
import { writeFileSync } from 'node:fs';

export interface IndexEntry {
  readonly url: string;
  readonly date: Date;
  readonly mime: string;
  readonly status: number;
  /** Base32 SHA-1 of the payload, without `sha1:` (as pywb writes it). */
  readonly digest: string;
  /** Offset and length of the record's gzip member in the file. */
  readonly offset: number;
  readonly length: number;
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/** SURT as the `surt` package's default canonicaliser writes it (pywb's lookups expect it). */
export function surt(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return raw.toLowerCase();
  }
  let host = u.hostname.toLowerCase().replace(/^www\d*\./, '');
  if (!IPV4.test(host) && !host.startsWith('[')) host = host.split('.').reverse().join(',');
  const port = u.port ? `:${u.port}` : '';
  const query = u.search.length > 1 ? `?${u.search.slice(1).split('&').sort().join('&')}` : '';
  return `${host}${port})${u.pathname}${query}`.toLowerCase();
}

/** yyyyMMddHHmmss in UTC. */
export function timestamp14(d: Date): string {
  return d.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

export function cdxjLine(e: IndexEntry, filename: string): string {
  const fields = {
    url: e.url,
    mime: e.mime,
    status: String(e.status),
    digest: e.digest,
    length: String(e.length),
    offset: String(e.offset),
    filename,
  };
  return `${surt(e.url)} ${timestamp14(e.date)} ${JSON.stringify(fields)}`;
}

/** Sorted as pywb sorts them. */
export function writeIndex(path: string, filename: string, entries: readonly IndexEntry[]): void {
  const lines = entries.map((e) => cdxjLine(e, filename));
  lines.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  writeFileSync(path, lines.length > 0 ? `${lines.join('\n')}\n` : '');
}
