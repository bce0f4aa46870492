/** A job's cookie jar: tough-cookie on a bounded store, kept in a CookieStore; on a shared store each
 *  request first takes the others' changes, so a session one daemon opened serves them all. */
import { CookieJar as ToughJar } from 'tough-cookie';
import type { CookieLimits } from '../../core/cookie-limits.js';
import type { CookieJar } from '../../ports/cookie-jar.js';
import type { SharedMapStore } from '../../ports/shared-map.js';
import { type MapOp, MapSync } from '../shared-map/map-sync.js';
import { BoundedCookieStore } from './bounded-store.js';

/** RFC 6265bis §5.7 and §5.6 (and every browser): name + value over 4096 bytes, attribute over 1024. */
export const MAX_COOKIE_NAME_VALUE_BYTES = 4096;
export const MAX_COOKIE_ATTRIBUTE_BYTES = 1024;

export type CookieOutcome = 'stored' | 'rejected';

export interface JobJarObserver {
  /** One Set-Cookie header line handled. */
  received?(jobId: string, outcome: CookieOutcome): void;
  /** The store failed (Redis down): the jar goes on from memory. Never carries a cookie value. */
  storeError?(jobId: string, op: MapOp, error: unknown): void;
}

export interface JobJarOptions {
  readonly jobId: string;
  /** Where the jar is kept: its map is named for the job. */
  readonly store: SharedMapStore;
  readonly limits: CookieLimits;
  /** Epoch ms; expiry itself is judged by tough-cookie on the system clock. @default Date.now */
  readonly now?: () => number;
  readonly observer?: JobJarObserver;
}

export class JobCookieJar implements CookieJar {
  readonly #o: JobJarOptions;
  readonly #mem: BoundedCookieStore;
  readonly #jar: ToughJar;
  readonly #sync: MapSync;

  constructor(options: JobJarOptions) {
    this.#o = options;
    this.#mem = new BoundedCookieStore(options.limits, options.now ?? Date.now);
    this.#jar = new ToughJar(this.#mem, { rejectPublicSuffixes: true, looseMode: false });
    this.#sync = new MapSync({
      store: options.store,
      map: options.jobId,
      apply: (changes, reset) => this.#mem.apply(changes, reset),
      onError: (op, error) => options.observer?.storeError?.(options.jobId, op, error),
    });
  }

  get jobId(): string {
    return this.#o.jobId;
  }

  get size(): number {
    return this.#mem.size;
  }

  /** Loads what the store kept. A store that cannot be read leaves the jar empty, not the job down. */
  open(): Promise<void> {
    return this.#sync.load();
  }

  /** The config's `request.cookies`, set as `url`'s server would (host-only, or for `domain`). */
  async seed(url: URL, cookies: Readonly<Record<string, string>>, domain?: string): Promise<void> {
    const attrs = domain === undefined ? '; Path=/' : `; Path=/; Domain=${domain}`;
    for (const [name, value] of Object.entries(cookies)) {
      this.#jar.setCookieSync(`${name}=${value}${attrs}`, url.href, { ignoreError: true });
    }
    await this.#flush();
  }

  async cookieHeader(url: URL): Promise<string> {
    await this.#sync.fresh();
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
    return this.#sync.write(this.#mem.drainChanges());
  }
}

/** A Set-Cookie line within those limits: undefined when ignored whole; long attributes dropped. */
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
