/**
 * WARC/1.1 archives (docs/archives.md), appended from the fetcher's tap before the fetch
 * resolves: a page is acked only after its response record is in the file.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { SinkError } from '../../../core/errors.js';
import { LruMap } from '../../../core/lru-map.js';
import type { HttpExchange } from '../../../ports/fetcher.js';
import type { ResultRecord, Sink } from '../../../ports/sink.js';
import {
  type BuiltRecord,
  type Capture,
  exchangeRecords,
  type RecordType,
  warcinfoRecord,
} from './exchange-records.js';
import { type ClosedFile, type Member, WarcFiles } from './files.js';
import { gzipMember, gzipMemberOffLoop, type WarcFields } from './warc-record.js';

export interface WarcObserver {
  /** Records written together (an exchange's request and response). */
  records(written: readonly { type: RecordType; bytes: number }[]): void;
  fileClosed(f: ClosedFile): void;
  openFileBytes(bytes: number): void;
  error(reason: string, err: unknown): void;
}

export interface WarcSinkOptions {
  readonly dir: string;
  readonly prefix: string;
  readonly instance: string;
  readonly maxFileBytes: number;
  readonly gzipLevel: number;
  readonly revisits: boolean;
  readonly revisitMemory: number;
  readonly redactSecrets: boolean;
  /** Only exchanges of these jobs (and those of no job: robots.txt, sitemaps); undefined: all. */
  readonly jobs?: readonly string[] | undefined;
  readonly info: WarcFields;
  readonly observer: WarcObserver;
  /**
   * Compress records in libuv's threadpool; default: when this process may use more than one
   * core. On one core the threadpool only adds its hand-offs (docs/archives.md, Cost).
   */
  readonly offLoop?: boolean;
}

/** Smaller records (request heads, redirects) cost less compressed in place than handed off. */
const OFF_LOOP_MIN_BYTES = 4096;

export class WarcSink implements Sink {
  readonly name = 'warc';
  readonly #o: WarcSinkOptions;
  readonly #files: WarcFiles;
  readonly #last: LruMap<string, Capture>;
  readonly #jobs: ReadonlySet<string> | undefined;
  readonly #offLoop: boolean;
  #open = false;
  #failed: unknown;
  /** The last exchange handed off: groups are appended in the order they came. */
  #tail: Promise<void> = Promise.resolve();

  constructor(options: WarcSinkOptions) {
    this.#o = options;
    this.#jobs = options.jobs ? new Set(options.jobs) : undefined;
    this.#last = new LruMap(options.revisitMemory);
    this.#offLoop = options.offLoop ?? availableParallelism() > 1;
    this.#files = new WarcFiles({
      dir: options.dir,
      prefix: options.prefix,
      instance: options.instance,
      maxFileBytes: options.maxFileBytes,
      warcinfo: (filename) => {
        const { data } = this.#member(warcinfoRecord(filename, options.info, new Date()));
        options.observer.records([{ type: 'warcinfo', bytes: data.length }]);
        return data;
      },
    });
  }

  async open(): Promise<void> {
    if (this.#open) return;
    mkdirSync(this.#o.dir, { recursive: true });
    for (const closed of this.#files.recoverLeftovers()) this.#o.observer.fileClosed(closed);
    if (this.#o.revisits && this.#o.revisitMemory > 0) this.#rememberIndexed();
    this.#open = true;
    this.#failed = undefined;
  }

  /** Written before it returns, or (off the loop) by the time its promise resolves. */
  readonly tap = (ex: HttpExchange): Promise<void> | undefined => {
    if (!this.#open || this.#failed !== undefined) return undefined;
    if (ex.jobId !== undefined && this.#jobs && !this.#jobs.has(ex.jobId)) return undefined;
    const built = exchangeRecords(ex, {
      redactSecrets: this.#o.redactSecrets,
      revisits: this.#o.revisits,
      last: this.#last.peek(ex.url),
    });
    const kept = () => {
      if (built.capture) this.#last.set(ex.url, built.capture);
    };
    if (!this.#offLoop) {
      if (this.#append(built.records.map((r) => this.#member(r)))) kept();
      return undefined;
    }
    const members = Promise.all(built.records.map((r) => this.#memberOffLoop(r)));
    const written = this.#tail.then(() =>
      members.then(
        (ms) => {
          if (this.#failed === undefined && this.#append(ms)) kept();
        },
        (err: unknown) => this.#fail('write', err),
      ),
    );
    this.#tail = written;
    return written;
  };

  /** The tap wrote the page already; a failed sink refuses it, so it comes back. */
  async write(_record: ResultRecord): Promise<void> {
    if (!this.#open) throw new SinkError('WarcSink is not open');
    if (this.#failed !== undefined) throw new SinkError('WarcSink failed earlier', { cause: this.#failed });
  }

  /** None: a page refetched after a crash is a second capture. */
  async recover(_keys: ReadonlySet<string>): Promise<Set<string>> {
    return new Set();
  }

  /** Records handed off are written by then; the rest were written as they were made. */
  async flush(): Promise<void> {
    await this.#tail;
  }

  async close(): Promise<void> {
    if (!this.#open) return;
    this.#open = false;
    await this.#tail;
    const closed = this.#files.release();
    if (closed) this.#o.observer.fileClosed(closed);
    this.#o.observer.openFileBytes(0);
  }

  #member(r: BuiltRecord): Member & { type: RecordType } {
    const data = gzipMember(r.parts, r.stored ? 0 : this.#o.gzipLevel);
    return { type: r.type, data, ...(r.index ? { index: r.index } : {}) };
  }

  #memberOffLoop(r: BuiltRecord): (Member & { type: RecordType }) | Promise<Member & { type: RecordType }> {
    const bytes = r.parts.reduce((n, p) => n + p.length, 0);
    // A stored member costs no more in place than a hand-off.
    if (bytes < OFF_LOOP_MIN_BYTES || r.stored) return this.#member(r);
    return gzipMemberOffLoop(r.parts, this.#o.gzipLevel).then((data) => ({
      type: r.type,
      data,
      ...(r.index ? { index: r.index } : {}),
    }));
  }

  #fail(reason: string, err: unknown): void {
    // Nothing goes after a torn member until the next start cuts it; the tasks come back.
    this.#failed ??= err;
    this.#o.observer.error(reason, err);
  }

  /** Appends members as one group; false (and the sink failed) if the disk refused them. */
  #append(members: readonly (Member & { type: RecordType })[]): boolean {
    try {
      const { closed } = this.#files.append(members);
      if (closed) this.#o.observer.fileClosed(closed);
      this.#o.observer.records(members.map((m) => ({ type: m.type, bytes: m.data.length })));
      this.#o.observer.openFileBytes(this.#files.size);
      return true;
    } catch (err) {
      this.#fail('write', err);
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
