import { createReadStream, writeSync } from 'node:fs';
import { type FileHandle, mkdir, open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { CrawldError } from '../../core/errors.js';
import { type ResultRecord, recordKey, type Sink } from '../../ports/sink.js';

export const RESULTS_FILE = 'results.jsonl';

export interface JsonlSinkOptions {
  /** The JSONL file. */
  readonly path: string;
}

/** The sink's file inside a data directory. */
export function resultsPath(dataDir: string): string {
  return join(dataDir, RESULTS_FILE);
}

interface Waiter {
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * Results as JSON Lines, one record per line, appended through a single fd opened 'a'.
 *
 * Durability: write() resolves once its line has been handed to the kernel with fs.write.
 * There is no fsync per record, so a record survives the process being killed (kill -9,
 * crash) but not power loss or a kernel panic; that is the trade the Sink contract makes.
 *
 * Writes are serialised: one fs.write is in flight at a time, and lines that arrive while it
 * runs are batched into the next one, so concurrent writers never interleave bytes and the
 * throughput cost of ordering is one syscall per batch rather than per record.
 *
 * If a write fails (disk full, EIO) the file may end in a torn line, so the sink refuses all
 * later writes; the next open() repairs the tail.
 */
export class JsonlSink implements Sink {
  readonly name = 'jsonl';
  readonly #path: string;
  #fd: FileHandle | undefined;
  #pending: string[] = [];
  #waiters: Waiter[] = [];
  #draining: Promise<void> | undefined;
  #failed: unknown;
  #closed = false;

  constructor(options: JsonlSinkOptions) {
    this.#path = options.path;
  }

  get path(): string {
    return this.#path;
  }

  async open(): Promise<void> {
    if (this.#fd) return;
    await mkdir(dirname(this.#path), { recursive: true });
    await repairTornTail(this.#path);
    this.#fd = await open(this.#path, 'a');
    this.#closed = false;
    this.#failed = undefined;
  }

  write(record: ResultRecord): Promise<void> {
    return this.writeJson(record);
  }

  /** Appends any record that has a `url` (change records share the file format). */
  writeJson(record: { readonly url: string }): Promise<void> {
    if (!this.#fd || this.#closed) return Promise.reject(new CrawldError('JsonlSink is not open'));
    if (this.#failed !== undefined) {
      return Promise.reject(new CrawldError('JsonlSink failed earlier', { cause: this.#failed }));
    }
    // Rebuilding with url first keeps it the first key whatever order the caller used.
    const { url, ...rest } = record;
    const line = `${JSON.stringify({ url, ...rest })}\n`;
    return new Promise<void>((resolve, reject) => {
      this.#pending.push(line);
      this.#waiters.push({ resolve, reject });
      this.#draining ??= this.#drain();
    });
  }

  async #drain(): Promise<void> {
    // Let the records of this turn of the event loop gather into one write.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (this.#pending.length > 0) {
        const lines = this.#pending;
        const waiters = this.#waiters;
        this.#pending = [];
        this.#waiters = [];
        try {
          if (this.#failed !== undefined) throw this.#failed;
          const fd = this.#fd;
          if (!fd) throw new CrawldError('JsonlSink closed during write');
          writeFully(fd, Buffer.from(lines.join(''), 'utf8'));
          for (const w of waiters) w.resolve();
        } catch (err) {
          this.#failed ??= err;
          for (const w of waiters) w.reject(err);
        }
      }
    } finally {
      this.#draining = undefined;
    }
  }

  async flush(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  async recover(keys: ReadonlySet<string>): Promise<Set<string>> {
    const found = new Set<string>();
    if (keys.size === 0) return found;
    await this.flush();
    // Cheap pre-filter: only lines whose taskId is wanted are JSON.parse'd.
    const taskIds = new Set<string>();
    for (const k of keys) taskIds.add(k.slice(0, k.lastIndexOf('#')));
    let input: ReturnType<typeof createReadStream>;
    try {
      input = createReadStream(this.#path, { encoding: 'utf8' });
      await new Promise<void>((resolve, reject) => input.once('open', () => resolve()).once('error', reject));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return found;
      throw err;
    }
    const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of lines) {
      if (!mayHoldWantedTask(line, taskIds)) continue;
      try {
        const rec = JSON.parse(line) as { taskId?: unknown; generation?: unknown };
        if (typeof rec.taskId !== 'string' || typeof rec.generation !== 'number') continue;
        const key = recordKey({ taskId: rec.taskId, generation: rec.generation });
        if (keys.has(key)) found.add(key);
      } catch {
        // A torn or foreign line is not a record.
      }
    }
    return found;
  }

  async close(): Promise<void> {
    if (!this.#fd) return;
    await this.flush();
    this.#closed = true;
    const fd = this.#fd;
    this.#fd = undefined;
    await fd.close();
  }
}

/**
 * Whether a line may hold one of the wanted tasks, judged from the first "taskId":"..." in it.
 * A JSON string cannot contain that byte sequence unescaped (its quotes would be \"), so the
 * first hit is a real key; records put url, finalUrl and jobId (all strings) before taskId,
 * so it is the top-level one. Ids with escapes are left to JSON.parse.
 */
function mayHoldWantedTask(line: string, taskIds: ReadonlySet<string>): boolean {
  const marker = '"taskId":"';
  const at = line.indexOf(marker);
  if (at < 0) return false;
  const start = at + marker.length;
  const end = line.indexOf('"', start);
  if (end < 0) return false;
  const raw = line.slice(start, end);
  return raw.includes('\\') || taskIds.has(raw);
}

/**
 * A synchronous write: appending to the page cache takes microseconds, far less than the
 * promise and thread-pool round trip of an async write, and the batch is already one call.
 */
function writeFully(fd: FileHandle, buf: Buffer): void {
  let off = 0;
  while (off < buf.length) off += writeSync(fd.fd, buf, off, buf.length - off);
}

const TAIL_CHUNK = 64 * 1024;

/** If the file does not end in '\n' (a write torn by a crash), truncate it after the last '\n'. */
async function repairTornTail(path: string): Promise<void> {
  let fd: FileHandle;
  try {
    fd = await open(path, 'r+');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    const { size } = await fd.stat();
    let end = size;
    const buf = Buffer.alloc(TAIL_CHUNK);
    while (end > 0) {
      const start = Math.max(0, end - TAIL_CHUNK);
      const { bytesRead } = await fd.read(buf, 0, end - start, start);
      const nl = buf.subarray(0, bytesRead).lastIndexOf(0x0a);
      if (nl >= 0) {
        if (start + nl + 1 !== size) await fd.truncate(start + nl + 1);
        return;
      }
      end = start;
    }
    if (size > 0) await fd.truncate(0);
  } finally {
    await fd.close();
  }
}
