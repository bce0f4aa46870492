/**
 * A job's cookie jar: tough-cookie (RFC 6265 parsing, domain and path matching, host-only and
 * domain cookies, Secure, expiry, public suffixes refused) on a bounded in-memory store, kept
 * in a CookieStore so it outlives a restart. On a shared store (Redis) each request first takes
 * the changes the other daemons wrote, so a session one daemon opened serves them all: a link
 * found after a cookie was stored is leased after it was written, and fetched with it.
 */
import { CookieJar as ToughJar } from 'tough-cookie';
import type { CookieLimits } from '../../core/cookie-limits.js';
import type { CookieJar } from '../../ports/cookie-jar.js';
import type { CookieStore } from '../../ports/cookie-store.js';
import { BoundedCookieStore } from './bounded-store.js';

/**
 * RFC 6265bis §5.7 (and every browser): a cookie whose name and value together pass 4096
 * bytes is ignored whole; so is an attribute value over 1024 bytes (§5.6).
 */
export const MAX_COOKIE_NAME_VALUE_BYTES = 4096;
export const MAX_COOKIE_ATTRIBUTE_BYTES = 1024;

export type CookieOutcome = 'stored' | 'rejected';

export interface JobJarObserver {
  /** One Set-Cookie header line handled. */
  received?(jobId: string, outcome: CookieOutcome): void;
  /** The store failed (Redis down): the jar goes on from memory. Never carries a cookie value. */
  storeError?(jobId: string, op: 'load' | 'write' | 'sync', error: unknown): void;
}

export interface JobJarOptions {
  readonly jobId: string;
  readonly store: CookieStore;
  readonly limits: CookieLimits;
  /** Epoch ms; expiry itself is judged by tough-cookie on the system clock. @default Date.now */
  readonly now?: () => number;
  readonly observer?: JobJarObserver;
}

export class JobCookieJar implements CookieJar {
  readonly #o: JobJarOptions;
  readonly #mem: BoundedCookieStore;
  readonly #jar: ToughJar;
  /** The store's version this jar has applied. */
  #version = 0;
  #syncing: Promise<void> | undefined;
  #nextSync: Promise<void> | undefined;
  /** Writes in flight, in order (a later write must not overtake an earlier one). */
  #writing: Promise<void> = Promise.resolve();

  constructor(options: JobJarOptions) {
    this.#o = options;
    this.#mem = new BoundedCookieStore(options.limits, options.now ?? Date.now);
    this.#jar = new ToughJar(this.#mem, { rejectPublicSuffixes: true, looseMode: false });
  }

  get jobId(): string {
    return this.#o.jobId;
  }

  /** Cookies in the jar now. */
  get size(): number {
    return this.#mem.size;
  }

  /** Loads what the store kept. A store that cannot be read leaves the jar empty, not the job down. */
  async open(): Promise<void> {
    try {
      const snap = await this.#o.store.load(this.#o.jobId);
      this.#mem.apply(snap.cookies, true);
      this.#version = snap.version;
    } catch (err) {
      this.#o.observer?.storeError?.(this.#o.jobId, 'load', err);
    }
  }

  /**
   * The config's `request.cookies`, set for `url` as that URL's server would set them: host-only
   * on its host, or for `domain` and its subdomains.
   */
  async seed(url: URL, cookies: Readonly<Record<string, string>>, domain?: string): Promise<void> {
    const attrs = domain === undefined ? '; Path=/' : `; Path=/; Domain=${domain}`;
    for (const [name, value] of Object.entries(cookies)) {
      this.#jar.setCookieSync(`${name}=${value}${attrs}`, url.href, { ignoreError: true });
    }
    await this.#flush();
  }

  async cookieHeader(url: URL): Promise<string> {
    if (this.#o.store.shared) await this.#fresh();
    // Most sites set no cookie at all: skip tough-cookie's URL parse and domain walk.
    if (this.#mem.size === 0) return '';
    const header = this.#jar.getCookieStringSync(url.href);
    // Expired cookies found on the way were removed: persisted in the background.
    void this.#flush();
    return header;
  }

  async storeResponse(url: URL, setCookies: readonly string[]): Promise<void> {
    if (setCookies.length === 0) return;
    for (const line of setCookies) {
      const sized = withinSizeLimits(line);
      const ok = sized !== undefined && this.#jar.setCookieSync(sized, url.href, { ignoreError: true });
      this.#o.observer?.received?.(this.#o.jobId, ok ? 'stored' : 'rejected');
    }
    await this.#flush();
  }

  /** Waits for the writes in flight (shutdown). */
  async close(): Promise<void> {
    await this.#flush();
  }

  #flush(): Promise<void> {
    const changes = this.#mem.drainChanges();
    if (changes.length === 0) return this.#writing;
    this.#writing = this.#writing.then(() =>
      this.#o.store.write(this.#o.jobId, changes).catch((err: unknown) => {
        this.#o.observer?.storeError?.(this.#o.jobId, 'write', err);
      }),
    );
    return this.#writing;
  }

  /**
   * Applies other daemons' changes made before this call. A sync already in flight may have
   * read the store before a change this caller depends on, so callers arriving during one
   * share the next, which starts after it.
   */
  #fresh(): Promise<void> {
    if (!this.#syncing) {
      this.#syncing = this.#sync().finally(() => {
        this.#syncing = undefined;
      });
      return this.#syncing;
    }
    this.#nextSync ??= this.#syncing.then(() => {
      this.#nextSync = undefined;
      return this.#fresh();
    });
    return this.#nextSync;
  }

  async #sync(): Promise<void> {
    try {
      const got = await this.#o.store.changesSince(this.#o.jobId, this.#version);
      if (got.version === this.#version && !got.reset) return;
      this.#mem.apply(got.changes, got.reset);
      this.#version = got.version;
    } catch (err) {
      this.#o.observer?.storeError?.(this.#o.jobId, 'sync', err);
    }
  }
}

/**
 * A Set-Cookie line within RFC 6265bis's size limits: undefined when its name and value pass
 * 4096 bytes (the line is ignored whole); attributes whose value passes 1024 bytes dropped.
 */
export function withinSizeLimits(line: string): string | undefined {
  const parts = line.split(';');
  const pair = parts[0] ?? '';
  const eq = pair.indexOf('=');
  const bytes = Buffer.byteLength(
    eq < 0 ? pair.trim() : `${pair.slice(0, eq).trim()}${pair.slice(eq + 1).trim()}`,
  );
  if (bytes > MAX_COOKIE_NAME_VALUE_BYTES) return undefined;
  const kept = parts.filter((part, i) => {
    if (i === 0) return true;
    const at = part.indexOf('=');
    return at < 0 || Buffer.byteLength(part.slice(at + 1).trim()) <= MAX_COOKIE_ATTRIBUTE_BYTES;
  });
  return kept.length === parts.length ? line : kept.join(';');
}
