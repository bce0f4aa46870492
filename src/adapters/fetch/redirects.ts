/** Redirects followed here, not by undici: every hop passes the address policy and the budget first. */
import { FetchError, RedirectLoopError, TooManyRedirectsError } from '../../core/errors.js';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Headers that must not leak to a different origin. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

export interface Hop {
  readonly url: URL;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body?: string | Buffer;
}

export function isRedirect(status: number, location: string | undefined): location is string {
  return REDIRECT_STATUSES.has(status) && location !== undefined && location !== '';
}

/**
 * A loop is the same URL with the same cookies: `/item → /gate → /item` is none when the gate
 * set a cookie (cookie walls, consent choosers).
 */
export class RedirectChain {
  readonly visited: string[] = [];
  readonly #seen = new Set<string>();

  readonly #maxRedirects: number;

  constructor(maxRedirects: number) {
    this.#maxRedirects = maxRedirects;
  }

  enter(url: URL, cookies: string): void {
    const key = visitKey(url, cookies);
    if (this.#seen.has(key)) {
      throw new RedirectLoopError(`redirect loop: ${url.href} repeats after ${this.visited.length} hops`);
    }
    this.#seen.add(key);
  }

  /** Every hop of the budget is used: the next redirect would fail. */
  get spent(): boolean {
    return this.visited.length >= this.#maxRedirects;
  }

  repeats(url: URL, cookies: string): boolean {
    return this.#seen.has(visitKey(url, cookies));
  }

  next(hop: Hop, status: number, location: string): Hop {
    const target = this.#target(hop, location);
    // 303 always, and 301/302 after POST (what browsers do), switch to a body-less GET.
    const toGet =
      (status === 303 && hop.method !== 'HEAD') ||
      ((status === 301 || status === 302) && hop.method === 'POST');
    return this.#hop(hop, target, toGet);
  }

  /** A refresh (meta or header) of `hop`'s page to `target`: a navigation, so a GET. */
  refresh(hop: Hop, target: URL): Hop {
    return this.#hop(hop, this.#target(hop, target.href), hop.method !== 'GET' || hop.body !== undefined);
  }

  #target(hop: Hop, location: string): URL {
    let target: URL;
    try {
      target = new URL(location, hop.url);
    } catch (err) {
      throw new FetchError(`invalid redirect Location ${JSON.stringify(location)} from ${hop.url.href}`, {
        cause: err,
      });
    }
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      throw new FetchError(`redirect from ${hop.url.href} to unsupported scheme ${target.protocol}`);
    }
    target.hash = '';
    return target;
  }

  #hop(hop: Hop, target: URL, toGet: boolean): Hop {
    if (this.visited.length >= this.#maxRedirects) {
      throw new TooManyRedirectsError(
        `more than ${this.#maxRedirects} redirects starting at ${this.visited[0] ?? hop.url.href}`,
      );
    }
    this.visited.push(hop.url.href);
    const headers = { ...hop.headers };
    if (toGet) {
      delete headers['content-type'];
      delete headers['content-length'];
    }
    if (target.origin !== hop.url.origin) for (const h of CREDENTIAL_HEADERS) delete headers[h];
    const method = toGet ? 'GET' : hop.method;
    return toGet || hop.body === undefined
      ? { url: target, method, headers }
      : { url: target, method, headers, body: hop.body };
  }
}

function visitKey(url: URL, cookies: string): string {
  return cookies === '' ? url.href : `${url.href}\n${cookies}`;
}
