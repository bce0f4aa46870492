/**
 * WARC files written as `….warc.gz.open`, renamed once closed beside their `.cdxj` (docs/archives.md).
 * A group (request and response) goes into one file in one synchronous write, so a killed
 * process leaves at most one torn member at the end, which the next start cuts off.
 */
import {
  closeSync,
  existsSync,
  ftruncateSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { type IndexEntry, writeIndex } from './cdxj.js';
import { claimOwner, ownerGone, ownerPath, releaseOwner } from './owner.js';
import { indexEntryOf, readWarc } from './reader.js';

export interface WarcFilesOptions {
  readonly dir: string;
  readonly prefix: string;
  /** This daemon's id: several daemons write one folder, each its own files. */
  readonly instance: string;
  readonly maxFileBytes: number;
  readonly warcinfo: (filename: string) => Buffer;
  readonly now?: () => Date;
}

/** A member to append, and what the index says of it (responses and revisits). */
export interface Member {
  readonly data: Buffer;
  readonly index?: Omit<IndexEntry, 'offset' | 'length'>;
}

export interface ClosedFile {
  readonly name: string;
  readonly records: number;
  readonly bytes: number;
  /** Closed at start-up after a crash left it open. */
  readonly recovered: boolean;
}

const OPEN = '.open';

export function fileSafe(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, '_');
}

function stamp17(d: Date): string {
  return d.toISOString().replace(/[-:T.Z]/g, '');
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export class WarcFiles {
  readonly #o: WarcFilesOptions;
  readonly #instance: string;
  readonly #mine: RegExp;
  /** Any instance's files of this prefix: instance in group 2. */
  readonly #any: RegExp;
  #fd: number | undefined;
  #name = '';
  #size = 0;
  #records = 0;
  #entries: IndexEntry[] = [];
  #serial = 0;

  constructor(options: WarcFilesOptions) {
    this.#o = options;
    this.#instance = fileSafe(options.instance);
    this.#mine = new RegExp(
      `^${escapeRe(options.prefix)}-\\d{17}-(\\d{5,})-${escapeRe(this.#instance)}\\.warc\\.gz(\\.open)?$`,
    );
    this.#any = new RegExp(`^${escapeRe(options.prefix)}-\\d{17}-(\\d{5,})-(.+)\\.warc\\.gz(\\.open)?$`);
  }

  get size(): number {
    return this.#fd === undefined ? 0 : this.#size;
  }

  ownFiles(): string[] {
    return readdirSync(this.#o.dir)
      .filter((n) => this.#mine.test(n))
      .sort();
  }

  allFiles(): string[] {
    return readdirSync(this.#o.dir)
      .filter((n) => this.#any.test(n))
      .sort();
  }

  /** `.open` files of other instances whose writer ran on this host and is gone. */
  #orphans(): string[] {
    return this.allFiles().filter((n) => {
      const instance = this.#any.exec(n)?.[2];
      return (
        n.endsWith(OPEN) &&
        instance !== undefined &&
        instance !== this.#instance &&
        ownerGone(ownerPath(this.#o.dir, this.#o.prefix, instance))
      );
    });
  }

  /** Start-up: a crash's `.open` files are cut to their last whole record, indexed and closed. */
  recoverLeftovers(): ClosedFile[] {
    const closed: ClosedFile[] = [];
    const orphans = this.#orphans();
    for (const name of orphans) {
      const done = this.#closeLeftover(name);
      if (done) closed.push(done);
    }
    for (const instance of new Set(orphans.map((n) => this.#any.exec(n)?.[2] ?? ''))) {
      releaseOwner(ownerPath(this.#o.dir, this.#o.prefix, instance));
    }
    claimOwner(ownerPath(this.#o.dir, this.#o.prefix, this.#instance));
    for (const name of this.ownFiles()) {
      const serial = Number(this.#mine.exec(name)?.[1]);
      this.#serial = Math.max(this.#serial, serial);
      if (name.endsWith(OPEN)) {
        const done = this.#closeLeftover(name);
        if (done) closed.push(done);
      } else if (!existsSync(join(this.#o.dir, indexName(name)))) {
        const entries = indexOf(join(this.#o.dir, name)).entries;
        writeIndex(join(this.#o.dir, indexName(name)), name, entries);
      }
    }
    return closed;
  }

  #closeLeftover(openName: string): ClosedFile | undefined {
    const path = join(this.#o.dir, openName);
    const { end, records, entries } = indexOf(path);
    if (records === 0) {
      rmSync(path);
      return undefined;
    }
    const fd = openSync(path, 'r+');
    try {
      ftruncateSync(fd, end);
    } finally {
      closeSync(fd);
    }
    const name = openName.slice(0, -OPEN.length);
    writeIndex(join(this.#o.dir, indexName(name)), name, entries);
    renameSync(path, join(this.#o.dir, name));
    return { name, records, bytes: end, recovered: true };
  }

  append(members: readonly Member[]): { closed?: ClosedFile; file: string } {
    const total = members.reduce((n, m) => n + m.data.length, 0);
    let closed: ClosedFile | undefined;
    // A file that holds more than its warcinfo is closed before the group would overflow it.
    if (this.#fd !== undefined && this.#records > 1 && this.#size + total > this.#o.maxFileBytes) {
      closed = this.close();
    }
    if (this.#fd === undefined) this.#start();
    let offset = this.#size;
    for (const m of members) {
      if (m.index) this.#entries.push({ ...m.index, offset, length: m.data.length });
      offset += m.data.length;
    }
    writeAll(this.#fd!, members.length === 1 ? members[0]!.data : Buffer.concat(members.map((m) => m.data)));
    this.#size = offset;
    this.#records += members.length;
    return { ...(closed ? { closed } : {}), file: this.#name };
  }

  #start(): void {
    this.#serial++;
    const now = (this.#o.now ?? (() => new Date()))();
    const serial = String(this.#serial).padStart(5, '0');
    this.#name = `${this.#o.prefix}-${stamp17(now)}-${serial}-${this.#instance}.warc.gz`;
    // 'wx': a name another process (or a clock step back) made already is never overwritten.
    this.#fd = openSync(join(this.#o.dir, this.#name + OPEN), 'wx');
    const info = this.#o.warcinfo(this.#name);
    writeAll(this.#fd, info);
    this.#size = info.length;
    this.#records = 1;
    this.#entries = [];
  }

  close(): ClosedFile | undefined {
    const fd = this.#fd;
    if (fd === undefined) return undefined;
    this.#fd = undefined;
    closeSync(fd);
    writeIndex(join(this.#o.dir, indexName(this.#name)), this.#name, this.#entries);
    renameSync(join(this.#o.dir, this.#name + OPEN), join(this.#o.dir, this.#name));
    const closed = { name: this.#name, records: this.#records, bytes: this.#size, recovered: false };
    this.#entries = [];
    return closed;
  }

  /** The sink stops: the open file is closed and the folder no longer names this daemon. */
  release(): ClosedFile | undefined {
    const closed = this.close();
    releaseOwner(ownerPath(this.#o.dir, this.#o.prefix, this.#instance));
    return closed;
  }
}

export function indexName(warcName: string): string {
  return `${warcName.replace(/\.warc\.gz$/, '')}.cdxj`;
}

function indexOf(path: string): { end: number; records: number; entries: IndexEntry[] } {
  const entries: IndexEntry[] = [];
  const { end, records } = readWarc(path, (r) => {
    const e = indexEntryOf(r);
    if (e) entries.push(e);
  });
  return { end, records, entries };
}

function writeAll(fd: number, buf: Buffer): void {
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
}
