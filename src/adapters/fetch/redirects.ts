/**
 * Redirects are followed here, not by undici, so every hop passes the address policy and the
 * hop budget before any connection is made.
 */
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

/** Tracks visited URLs for one fetch; throws when the chain loops or runs too long. */
export class RedirectChain {
  readonly visited: string[] = [];
  readonly #seen = new Set<string>();

  constructor(
    private readonly maxRedirects: number,
    first: URL,
  ) {
    this.#seen.add(first.href);
  }

  /** Computes the next hop for a redirect response from `hop`. */
  next(hop: Hop, status: number, location: string): Hop {
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
    if (this.#seen.has(target.href)) {
      throw new RedirectLoopError(
        `redirect loop: ${target.href} repeats after ${this.visited.length + 1} hops`,
      );
    }
    if (this.visited.length >= this.maxRedirects) {
      throw new TooManyRedirectsError(
        `more than ${this.maxRedirects} redirects starting at ${this.visited[0] ?? hop.url.href}`,
      );
    }
    this.visited.push(hop.url.href);
    this.#seen.add(target.href);

    // 303 always, and 301/302 after POST (what browsers do), switch to a body-less GET.
    const toGet =
      (status === 303 && hop.method !== 'HEAD') ||
      ((status === 301 || status === 302) && hop.method === 'POST');
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
