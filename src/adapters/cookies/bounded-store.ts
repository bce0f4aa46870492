/** tough-cookie's memory store with RFC 6265 §5.3's limits (per domain, in all; expired first, then
 *  least recently used, step 12), recording each change for the persistent store. */
import { type Callback, Cookie, type ErrorCallback, MemoryCookieStore, type Nullable } from 'tough-cookie';
import { type CookieLimits, checkCookieLimits } from '../../core/cookie-limits.js';
import type { MapChange } from '../../ports/shared-map.js';

/** A cookie's identity: RFC 6265 §5.3 step 11 replaces a cookie of the same domain, path and name. */
export function cookieId(domain: string, path: string, key: string): string {
  return `${domain};${path};${key}`;
}

const idOf = (c: Cookie) => cookieId(c.domain ?? '', c.path ?? '', c.key);

export class BoundedCookieStore extends MemoryCookieStore {
  /** Every cookie by id, least recently used first (a Map keeps insertion order). */
  readonly #byId = new Map<string, Cookie>();
  readonly #perDomain = new Map<string, number>();
  #changes: MapChange[] = [];
  /** Applying another writer's changes: not recorded as ours. */
  #quiet = false;

  readonly #limits: CookieLimits;
  readonly #now: () => number;

  constructor(limits: CookieLimits, now: () => number) {
    super();
    this.#limits = checkCookieLimits(limits);
    this.#now = now;
  }

  get size(): number {
    return this.#byId.size;
  }

  /** The changes since the last call, oldest first. */
  drainChanges(): MapChange[] {
    const out = this.#changes;
    this.#changes = [];
    return out;
  }

  /** Applies stored changes (load, or another daemon's writes) without recording them. */
  apply(changes: readonly MapChange[], reset: boolean): void {
    this.#quiet = true;
    try {
      if (reset) {
        for (const c of [...this.#byId.values()]) this.#remove(c.domain ?? '', c.path ?? '', c.key);
      }
      const parsed = changes.map((ch) => ({
        ch,
        cookie: ch.json === undefined ? undefined : parseStored(ch.json),
      }));
      // Oldest first: cookies of one path length are sent in creation order (RFC 6265 §5.4).
      if (reset) parsed.sort((a, b) => creationOf(a.cookie) - creationOf(b.cookie));
      for (const { ch, cookie } of parsed) {
        if (cookie) {
          this.#put(cookie);
        } else {
          const known = this.#byId.get(ch.id);
          if (known) this.#remove(known.domain ?? '', known.path ?? '', known.key);
        }
      }
    } finally {
      this.#quiet = false;
    }
  }

  override findCookies(domain: string, path: string, allowSpecialUseDomain?: boolean): Promise<Cookie[]>;
  override findCookies(
    domain: string,
    path: string,
    allowSpecialUseDomain?: boolean,
    callback?: Callback<Cookie[]>,
  ): void;
  override findCookies(
    domain: string,
    path: string,
    allowSpecialUseDomain: boolean | Callback<Cookie[]> = false,
    callback?: Callback<Cookie[]>,
  ): unknown {
    if (typeof allowSpecialUseDomain === 'function') {
      callback = allowSpecialUseDomain;
      allowSpecialUseDomain = true;
    }
    if (this.#byId.size === 0) {
      // Nothing stored: skip the domain permutations (the common case of a site without cookies).
      if (callback) return callback(null, []);
      return Promise.resolve([]);
    }
    // Cookies about to be sent become the most recently used.
    const touch = (found: readonly Cookie[]) => {
      for (const c of found) {
        const id = idOf(c);
        if (this.#byId.delete(id)) this.#byId.set(id, c);
      }
    };
    if (!callback) {
      return super.findCookies(domain, path, allowSpecialUseDomain).then((found) => {
        touch(found);
        return found;
      });
    }
    super.findCookies(domain, path, allowSpecialUseDomain, (err, found) => {
      if (err) return callback(err);
      touch(found ?? []);
      return callback(null, found ?? []);
    });
    return undefined;
  }

  override putCookie(cookie: Cookie): Promise<void>;
  override putCookie(cookie: Cookie, callback: ErrorCallback): void;
  override putCookie(cookie: Cookie, callback?: ErrorCallback): unknown {
    const expiry = cookie.expiryTime();
    // An expired cookie replaces and so removes the one it names (how servers delete cookies).
    if (expiry !== undefined && expiry <= this.#now()) {
      if (this.#byId.has(idOf(cookie))) this.#remove(cookie.domain ?? '', cookie.path ?? '', cookie.key);
    } else {
      this.#put(cookie);
    }
    callback?.(null);
    return callback ? undefined : Promise.resolve();
  }

  override updateCookie(oldCookie: Cookie, newCookie: Cookie): Promise<void>;
  override updateCookie(oldCookie: Cookie, newCookie: Cookie, callback: ErrorCallback): void;
  override updateCookie(_oldCookie: Cookie, newCookie: Cookie, callback?: ErrorCallback): unknown {
    return callback ? this.putCookie(newCookie, callback) : this.putCookie(newCookie);
  }

  override removeCookie(domain: string, path: string, key: string): Promise<void>;
  override removeCookie(domain: string, path: string, key: string, callback: ErrorCallback): void;
  override removeCookie(
    domain: Nullable<string>,
    path: Nullable<string>,
    key: Nullable<string>,
    callback?: ErrorCallback,
  ): unknown {
    this.#remove(domain ?? '', path ?? '', key ?? '');
    callback?.(null);
    return callback ? undefined : Promise.resolve();
  }

  #put(cookie: Cookie): void {
    const domain = cookie.domain ?? '';
    const id = idOf(cookie);
    const known = this.#byId.delete(id);
    this.#byId.set(id, cookie);
    if (!known) this.#perDomain.set(domain, (this.#perDomain.get(domain) ?? 0) + 1);
    super.putCookie(cookie, () => {});
    if (!this.#quiet) this.#changes.push({ id, json: JSON.stringify(cookie.toJSON()) });
    if ((this.#perDomain.get(domain) ?? 0) > this.#limits.maxPerDomain) this.#evict(domain, id);
    if (this.#byId.size > this.#limits.maxTotal) this.#evict(undefined, id);
  }

  #remove(domain: string, path: string, key: string): void {
    const id = cookieId(domain, path, key);
    if (!this.#byId.delete(id)) return;
    const left = (this.#perDomain.get(domain) ?? 1) - 1;
    if (left > 0) this.#perDomain.set(domain, left);
    else this.#perDomain.delete(domain);
    super.removeCookie(domain, path, key, () => {});
    if (!this.#quiet) this.#changes.push({ id });
  }

  /** One cookie out (of `domain`, or of the jar): an expired one if any, else the least recently used. */
  #evict(domain: string | undefined, keep: string): void {
    const now = this.#now();
    let victim: Cookie | undefined;
    for (const [id, c] of this.#byId) {
      if (id === keep || (domain !== undefined && c.domain !== domain)) continue;
      const expiry = c.expiryTime();
      if (expiry !== undefined && expiry <= now) {
        victim = c;
        break;
      }
      victim ??= c;
      // Look past the least recently used for an expired one only in a short scan (a domain's).
      if (domain === undefined) break;
    }
    if (victim) this.#remove(victim.domain ?? '', victim.path ?? '', victim.key);
  }
}

function creationOf(c: Cookie | undefined): number {
  return c?.creation instanceof Date ? c.creation.getTime() : 0;
}

function parseStored(json: string): Cookie | undefined {
  try {
    return Cookie.fromJSON(json) ?? undefined;
  } catch {
    return undefined;
  }
}
