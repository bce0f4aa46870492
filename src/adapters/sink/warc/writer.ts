/**
 * Everything after an exchange is captured: its records (digests, revisit decision, redaction),
 * their gzip members, the files and their indexes. Synchronous: it runs on the event loop (one
 * core) or in the writer thread (writer-worker.ts), the same code either way.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LruMap } from '../../../core/lru-map.js';
import type { HttpExchange } from '../../../ports/fetcher.js';
import {
  type BuiltRecord,
  type Capture,
  exchangeRecords,
  type RecordType,
  warcinfoRecord,
} from './exchange-records.js';
import { type ClosedFile, type Member, WarcFiles } from './files.js';
import { gzipMember, type WarcFields } from './warc-record.js';

export interface WarcObserver {
  /** Records written together (an exchange's request and response). */
  records(written: readonly { type: RecordType; bytes: number }[]): void;
  fileClosed(f: ClosedFile): void;
  openFileBytes(bytes: number): void;
  error(reason: string, err: unknown): void;
}

/** What the writer needs: plain data, so it can be posted to the writer thread. */
export interface WarcWriterOptions {
  readonly dir: string;
  readonly prefix: string;
  readonly instance: string;
  readonly maxFileBytes: number;
  readonly gzipLevel: number;
  readonly revisits: boolean;
  readonly revisitMemory: number;
  readonly redactSecrets: boolean;
  readonly info: WarcFields;
}

export class WarcWriter {
  readonly #o: WarcWriterOptions;
  readonly #observer: WarcObserver;
  readonly #files: WarcFiles;
  readonly #last: LruMap<string, Capture>;
  #failed: unknown;

  constructor(options: WarcWriterOptions, observer: WarcObserver) {
    this.#o = options;
    this.#observer = observer;
    this.#last = new LruMap(options.revisitMemory);
    this.#files = new WarcFiles({
      dir: options.dir,
      prefix: options.prefix,
      instance: options.instance,
      maxFileBytes: options.maxFileBytes,
      warcinfo: (filename) => {
        const { data } = this.#member(warcinfoRecord(filename, options.info, new Date()));
        observer.records([{ type: 'warcinfo', bytes: data.length }]);
        return data;
      },
    });
  }

  /** Start-up: a crash's leftovers closed, the indexes read for revisits. */
  open(): void {
    mkdirSync(this.#o.dir, { recursive: true });
    for (const closed of this.#files.recoverLeftovers()) this.#observer.fileClosed(closed);
    if (this.#o.revisits && this.#o.revisitMemory > 0) this.#rememberIndexed();
    this.#failed = undefined;
  }

  /** The exchange's records appended as one group; nothing after a failure. */
  write(ex: HttpExchange): void {
    if (this.#failed !== undefined) return;
    const built = exchangeRecords(ex, {
      redactSecrets: this.#o.redactSecrets,
      revisits: this.#o.revisits,
      last: this.#last.peek(ex.url),
    });
    if (this.#append(built.records.map((r) => this.#member(r))) && built.capture) {
      this.#last.set(ex.url, built.capture);
    }
  }

  close(): void {
    const closed = this.#files.release();
    if (closed) this.#observer.fileClosed(closed);
    this.#observer.openFileBytes(0);
  }

  #member(r: BuiltRecord): Member & { type: RecordType } {
    const data = gzipMember(r.parts, r.stored ? 0 : this.#o.gzipLevel);
    return { type: r.type, data, ...(r.index ? { index: r.index } : {}) };
  }

  /** Appends members as one group; false (and the writer failed) if the disk refused them. */
  #append(members: readonly (Member & { type: RecordType })[]): boolean {
    try {
      const { closed } = this.#files.append(members);
      if (closed) this.#observer.fileClosed(closed);
      this.#observer.records(members.map((m) => ({ type: m.type, bytes: m.data.length })));
      this.#observer.openFileBytes(this.#files.size);
      return true;
    } catch (err) {
      // Nothing goes after a torn member until the next start cuts it; the tasks come back.
      this.#failed ??= err;
      this.#observer.error('write', err);
      return false;
    }
  }

  /** The last capture of each URL in the folder's indexes (oldest file first, the newest wins). */
  #rememberIndexed(): void {
    const names = readdirSync(this.#o.dir)
      .filter((n) => n.startsWith(`${this.#o.prefix}-`) && n.endsWith('.cdxj'))
      .sort();
    for (const name of names) {
      for (const line of readFileSync(join(this.#o.dir, name), 'utf8').split('\n')) {
        const capture = captureOf(line);
        if (capture) this.#last.set(capture.url, capture.capture);
      }
    }
  }
}

/** A full 200 capture from an index line (revisits and other statuses are not captures). */
function captureOf(line: string): { url: string; capture: Capture } | undefined {
  const brace = line.indexOf('{');
  if (brace < 0) return undefined;
  try {
    const j = JSON.parse(line.slice(brace)) as Record<string, string>;
    const ts = line.slice(0, brace).trim().split(' ').pop() ?? '';
    if (j.status !== '200' || j.mime === 'warc/revisit' || !j.url || !j.digest || ts.length !== 14)
      return undefined;
    const iso = `${ts.slice(0, 4)}-${ts.slice(4, 6)}-${ts.slice(6, 8)}T${ts.slice(8, 10)}:${ts.slice(10, 12)}:${ts.slice(12, 14)}Z`;
    return { url: j.url, capture: { id: '', date: new Date(iso), digest: `sha1:${j.digest}` } };
  } catch {
    return undefined;
  }
}
