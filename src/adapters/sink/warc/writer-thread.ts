/**
 * The WARC writer in a worker thread: the event loop posts each exchange and the thread answers
 * in the order they came, with what the observer must hear (records, files closed, errors).
 */
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { HttpExchange } from '../../../ports/fetcher.js';
import type { RecordType } from './exchange-records.js';
import type { ClosedFile } from './files.js';
import type { WarcObserver, WarcWriterOptions } from './writer.js';

/** An exchange as posted: plain fields, each buffer its own (a pooled one would copy its slab). */
export interface PostedExchange extends Omit<HttpExchange, 'requestHead' | 'requestBody' | 'body'> {
  readonly requestHead: Uint8Array;
  readonly requestBody?: Uint8Array;
  readonly body: Uint8Array;
}

export type ToWriter =
  | { readonly t: 'open'; readonly options: WarcWriterOptions }
  | { readonly t: 'write'; readonly exs: readonly PostedExchange[] }
  | { readonly t: 'close' };

export type WriterEvent =
  | readonly ['records', readonly { type: RecordType; bytes: number }[]]
  | readonly ['closed', ClosedFile]
  | readonly ['openBytes', number]
  | readonly ['error', string, unknown];

export interface WriterReply {
  readonly events: readonly WriterEvent[];
  /** The message itself failed (open's recovery, say). */
  readonly error?: unknown;
}

declare const CRAWLD_WARC_WRITER_JS: string | undefined;

/** The bundle carries the thread's code (scripts/bundle.mjs); tsc's output has it beside this. */
async function startWorker(): Promise<Worker> {
  if (typeof CRAWLD_WARC_WRITER_JS !== 'undefined') return new Worker(CRAWLD_WARC_WRITER_JS, { eval: true });
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./writer-worker.js', import.meta.url));
  // Run from the TypeScript source (vitest): a thread cannot load .ts, so it gets the bundled entry.
  const { buildSync } = await import('esbuild');
  const out = buildSync({
    entryPoints: [fileURLToPath(new URL('./writer-worker.ts', import.meta.url))],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'cjs',
    target: 'node20.18',
    logLevel: 'warning',
  });
  return new Worker(out.outputFiles[0]!.text, { eval: true });
}

function posted(ex: HttpExchange): PostedExchange {
  return {
    ...(ex.jobId !== undefined ? { jobId: ex.jobId } : {}),
    url: ex.url,
    method: ex.method,
    requestHead: own(ex.requestHead),
    ...(ex.requestBody ? { requestBody: own(ex.requestBody) } : {}),
    date: ex.date,
    ...(ex.ip !== undefined ? { ip: ex.ip } : {}),
    status: ex.status,
    statusText: ex.statusText,
    responseHeaders: ex.responseHeaders,
    body: own(ex.body),
    ...(ex.truncated ? { truncated: ex.truncated } : {}),
  };
}

const own = (b: Uint8Array): Uint8Array =>
  b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b : new Uint8Array(b);

export interface WriterThreadHandlers {
  /** A batch of exchanges written (or not: its events say), before their promises resolve. */
  written(r: WriterReply): void;
  /** The thread failed or exited unasked; every pending message is settled by then. */
  died(err: unknown): void;
}

export class WriterThread {
  readonly #on: WriterThreadHandlers;
  #worker: Worker | undefined;
  /** Exchanges tapped in this turn of the event loop: one message, one reply for them all. */
  #batch: PostedExchange[] = [];
  #batchWritten: Promise<void> | undefined;
  /** Replies come in the order the messages went. */
  readonly #waiting: ((r: WriterReply) => void)[] = [];
  #dead = false;
  #ending = false;

  constructor(on: WriterThreadHandlers) {
    this.#on = on;
  }

  get dead(): boolean {
    return this.#dead;
  }

  async open(options: WarcWriterOptions): Promise<WriterReply> {
    const worker = await startWorker();
    this.#worker = worker;
    this.#dead = false;
    this.#ending = false;
    worker.on('message', (r: WriterReply) => {
      this.#waiting.shift()?.(r);
      if (this.#waiting.length === 0) worker.unref();
    });
    worker.on('error', (err) => this.#died(err));
    worker.on('exit', (code) => this.#died(new Error(`WARC writer thread exited (code ${code})`)));
    return this.#send({ t: 'open', options });
  }

  /** Resolves once the exchange's records are in the file (or the writer failed). */
  write(ex: HttpExchange): Promise<void> {
    this.#batch.push(posted(ex));
    // Posted once the loop has run this turn's I/O callbacks: a message per turn, not per page.
    this.#batchWritten ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
      this.#postBatch(),
    );
    return this.#batchWritten;
  }

  async #postBatch(): Promise<void> {
    const exs = this.#batch;
    this.#batch = [];
    this.#batchWritten = undefined;
    this.#on.written(await this.#send({ t: 'write', exs }));
  }

  /** The thread closes its file and ends. */
  async close(): Promise<WriterReply> {
    await this.#batchWritten;
    const reply = await this.#send({ t: 'close' });
    this.#ending = true;
    await this.#worker?.terminate();
    return reply;
  }

  /** Ends the thread unasked: what a crash in it looks like from here. */
  async terminate(): Promise<void> {
    await this.#worker?.terminate();
  }

  #send(m: ToWriter): Promise<WriterReply> {
    const worker = this.#worker;
    if (this.#dead || !worker) return Promise.resolve({ events: [] });
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      // Ref'd only while it owes replies: a waiting close keeps the process; an idle thread not.
      worker.ref();
      worker.postMessage(m);
    });
  }

  #died(err: unknown): void {
    if (this.#dead || this.#ending) return;
    this.#dead = true;
    for (const resolve of this.#waiting.splice(0)) resolve({ events: [] });
    this.#on.died(err);
  }
}

/** What the thread reported, told to the observer on the event loop. */
export function replay(events: readonly WriterEvent[], observer: WarcObserver): void {
  for (const e of events) {
    if (e[0] === 'records') observer.records(e[1]);
    else if (e[0] === 'closed') observer.fileClosed(e[1]);
    else if (e[0] === 'openBytes') observer.openFileBytes(e[1]);
    else observer.error(e[1], e[2]);
  }
}
