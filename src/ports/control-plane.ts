/**
 * What the scheduler asks before starting a request to a host, and tells after it ends.
 * The control plane composes the breaker, the host pause (Retry-After / 429 backoff),
 * politeness delay, rate limits and the adaptive concurrency limiters; the scheduler only
 * acts on its answer. admit() is synchronous and cheap: it is called in the dispatch loop.
 */

/**
 * What serves a host's requests: undici (`http`) or the browser pool (`browser`, jobs with
 * render.kind browser). A new host's limit algorithm is made for the kind of its first request:
 * a render host starts from the browser pool's capacity, not the http default (docs/browser.md).
 */
export type FetcherKind = 'http' | 'browser';

export type Admission =
  | { readonly kind: 'go'; readonly permit: Permit }
  /** No concurrency slot now: try again when onAvailable fires. */
  | { readonly kind: 'full' }
  /** Rate limit or politeness delay: try again in delayMs (short). */
  | { readonly kind: 'wait'; readonly delayMs: number; readonly reason: 'rate_limit' | 'politeness' }
  /** Host paused or breaker open: hand the host's buffered tasks back for delayMs, uncharged. */
  | { readonly kind: 'defer'; readonly delayMs: number; readonly reason: string };

export type Outcome =
  /** The server answered in time with a status that says nothing bad about its load. */
  | {
      readonly kind: 'success';
      readonly ttfbMs: number;
      readonly lagMs: number;
      /** The response's own wait in our event loop, when the fetcher measured it. */
      readonly queuedMs?: number;
    }
  /** Overload signal: timeout, connection error, 429, 503. Cuts the limit; counts for the breaker. */
  | { readonly kind: 'dropped'; readonly status?: number; readonly retryAfterMs?: number }
  /**
   * The request outlived its host's learned timeout and was given up as hung (HungRequestError):
   * a failure for the breaker, a drop for the limit, and the host is held to one probe in flight
   * until something it was sent since comes back.
   */
  | { readonly kind: 'hung' }
  /** A failure of the host that is not an overload signal (500, other 5xx): counts for the breaker. */
  | { readonly kind: 'failure'; readonly status?: number }
  /** Says nothing about the server (aborted by us, blocked by our guard, too large). */
  | { readonly kind: 'ignore' };

export interface Permit {
  /** Exactly once per permit; further calls are ignored. */
  release(outcome: Outcome): void;
  /**
   * The permit's page request goes out now. A host's politeness gap counts from the admit;
   * work done under the permit before the page (robots.txt fetched at the host's first
   * contact) would otherwise shorten the gap between this page and the host's next one.
   */
  requestStarting?(): void;
}

export interface HostSnapshot {
  readonly host: string;
  readonly limit: number;
  readonly inflight: number;
  readonly breaker: 'closed' | 'halfOpen' | 'open';
  /** Epoch ms until which the host is paused (Retry-After, 429 backoff), if it is. */
  readonly pausedUntil?: number;
}

export interface ControlPlane {
  /** `kind`: what will serve the request (a new host's limit starts from that fetcher's capacity). @default 'http' */
  admit(host: string, kind?: FetcherKind): Admission;
  /** Called when a slot frees or a breaker/host pause may have ended; returns an unsubscribe. */
  onAvailable(listener: () => void): () => void;
  /**
   * A host's requests are now served by another fetcher (render kind auto decided it): its
   * concurrency limit starts again from that fetcher's.
   */
  fetcherChanged?(host: string, kind: FetcherKind): void;
  /** The per-host concurrency limit now (for stats, status page and buffer sizing). */
  hostLimit(host: string): number;
  /** Milliseconds until the host's open breaker lets a probe through; 0 when it is not open. */
  breakerRetryInMs(host: string): number;
  inflight(): number;
  /** Global limit of requests in flight in force (concurrency.global, or lower while the event loop is saturated). */
  globalLimit(): number;
  /** State of the hosts the control plane currently tracks (bounded). */
  hostSnapshots(): Iterable<HostSnapshot>;
}
