import { createReadStream, writeSync } from 'node:fs';
import { type FileHandle, mkdir, open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { CrawldError } from '../../core/errors.js';
import { type ResultRecord, recordKey, type Sink } from '../../ports/sink.js';

export const RESULTS_FILE = 'results.jsonl';

export interface JsonlSinkOptions {
  readonly path: string;
}

export function resultsPath(dataDir: string): string {
  return join(dataDir, RESULTS_FILE);
}

interface Waiter {
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * Results as JSON Lines through one fd opened 'a'. No fsync: a record survives kill -9, not
 * power loss (the Sink contract's trade). One write in flight, later lines batched into the
 * next: no interleaving, one syscall per batch. After a failed write the sink refuses more
 * (the file may end torn); the next open() repairs the tail.
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

  /** Change records share the file format. */
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
 * A JSON string cannot hold `"taskId":"` unescaped, and records put only strings before taskId,
 * so the first hit is the top-level key. Ids with escapes are left to JSON.parse.
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

/** Synchronous: a page-cache append costs less than an async write's thread-pool round trip. */
function writeFully(fd: FileHandle, buf: Buffer): void {
  let off = 0;
  while (off < buf.length) off += writeSync(fd.fd, buf, off, buf.length - off);
}

const TAIL_CHUNK = 64 * 1024;

/** A write torn by a crash: cut after the last '\n'. */
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
