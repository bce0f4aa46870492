/**
 * WARC/1.1 archives (docs/archives.md), appended from the fetcher's tap before the fetch
 * resolves: a page is acked only after its response record is in the file.
 */
import { availableParallelism } from 'node:os';
import { SinkError } from '../../../core/errors.js';
import type { HttpExchange } from '../../../ports/fetcher.js';
import type { ResultRecord, Sink } from '../../../ports/sink.js';
import { type WarcObserver, WarcWriter, type WarcWriterOptions } from './writer.js';
import { replay, type WriterReply, WriterThread } from './writer-thread.js';

export type { WarcObserver } from './writer.js';

export interface WarcSinkOptions extends WarcWriterOptions {
  /** Only exchanges of these jobs (and those of no job: robots.txt, sitemaps); undefined: all. */
  readonly jobs?: readonly string[] | undefined;
  readonly observer: WarcObserver;
  /**
   * Write in a worker thread (records, gzip, files), off the event loop.
   * @default true when this process may use more than one core; on one core the thread only
   * adds its hand-offs (docs/archives.md, Cost).
   */
  readonly offLoop?: boolean;
}

export class WarcSink implements Sink {
  readonly name = 'warc';
  readonly #o: WarcSinkOptions;
  readonly #jobs: ReadonlySet<string> | undefined;
  readonly #offLoop: boolean;
  /** In the loop: the writer itself; off it: its thread. */
  #writer: WarcWriter | undefined;
  #thread: WriterThread | undefined;
  #open = false;
  #failed: unknown;
  /** The last exchange posted: the thread answers in order, so all before it are written too. */
  #tail: Promise<void> = Promise.resolve();

  constructor(options: WarcSinkOptions) {
    this.#o = options;
    this.#jobs = options.jobs ? new Set(options.jobs) : undefined;
    this.#offLoop = options.offLoop ?? availableParallelism() > 1;
  }

  async open(): Promise<void> {
    if (this.#open) return;
    this.#failed = undefined;
    const options = writerOptions(this.#o);
    if (!this.#offLoop) {
      const writer = new WarcWriter(options, this.#heard);
      writer.open();
      this.#writer = writer;
    } else {
      const thread = new WriterThread({
        written: (r) => this.#replay(r),
        died: (err) => this.#fail('writer_thread', err),
      });
      const reply = await thread.open(options);
      replay(reply.events, this.#o.observer);
      if (reply.error !== undefined || thread.dead) {
        await thread.close();
        throw reply.error ?? new SinkError('WARC writer thread failed to start', { cause: this.#failed });
      }
      this.#thread = thread;
    }
    this.#open = true;
  }

  /** Written before it returns, or (off the loop) by the time its promise resolves. */
  readonly tap = (ex: HttpExchange): Promise<void> | undefined => {
    if (!this.#open || this.#failed !== undefined) return undefined;
    if (ex.jobId !== undefined && this.#jobs && !this.#jobs.has(ex.jobId)) return undefined;
    if (this.#writer) {
      this.#writer.write(ex);
      return undefined;
    }
    const written = this.#thread!.write(ex);
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

  /** Exchanges posted are written by then; in the loop they were written as they came. */
  async flush(): Promise<void> {
    await this.#tail;
  }

  async close(): Promise<void> {
    if (!this.#open) return;
    this.#open = false;
    await this.#tail;
    if (this.#writer) {
      this.#writer.close();
      this.#writer = undefined;
      return;
    }
    const thread = this.#thread!;
    this.#thread = undefined;
    if (thread.dead) {
      this.#o.observer.openFileBytes(0);
      return;
    }
    this.#replay(await thread.close());
  }

  /**
   * Ends the writer thread unasked, as a crash in it would (tests): pending taps settle, the
   * sink has failed. Resolves once the thread is gone.
   */
  async endWriterThread(): Promise<void> {
    await this.#thread?.terminate();
  }

  #replay(r: WriterReply): void {
    replay(r.events, this.#heard);
    // The thread threw on the exchange itself: what it wrote of it is unknown, so nothing follows.
    if (r.error !== undefined) this.#fail('write', r.error);
  }

  /** The observer, with the writer's errors failing the sink in either mode. */
  readonly #heard: WarcObserver = {
    records: (written) => this.#o.observer.records(written),
    fileClosed: (f) => this.#o.observer.fileClosed(f),
    openFileBytes: (bytes) => this.#o.observer.openFileBytes(bytes),
    error: (reason, err) => this.#fail(reason, err),
  };

  #fail(reason: string, err: unknown): void {
    // Nothing goes after a torn member until the next start cuts it; the tasks come back.
    this.#failed ??= err;
    this.#o.observer.error(reason, err);
  }
}

function writerOptions(o: WarcSinkOptions): WarcWriterOptions {
  return {
    dir: o.dir,
    prefix: o.prefix,
    instance: o.instance,
    maxFileBytes: o.maxFileBytes,
    gzipLevel: o.gzipLevel,
    revisits: o.revisits,
    revisitMemory: o.revisitMemory,
    redactSecrets: o.redactSecrets,
    info: o.info,
  };
}
