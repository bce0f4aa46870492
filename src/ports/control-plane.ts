/** What the scheduler asks before a request and tells after. admit() is synchronous: it runs in the dispatch loop. */

/** A new host's limit is made for the kind of its first request (docs/browser.md). */
export type FetcherKind = 'http' | 'browser';

export type Admission =
  | { readonly kind: 'go'; readonly permit: Permit }
  /** Try again when onAvailable fires. */
  | { readonly kind: 'full' }
  | { readonly kind: 'wait'; readonly delayMs: number; readonly reason: 'rate_limit' | 'politeness' }
  /** Hand the host's buffered tasks back for delayMs, uncharged. */
  | { readonly kind: 'defer'; readonly delayMs: number; readonly reason: string };

export type Outcome =
  | {
      readonly kind: 'success';
      readonly ttfbMs: number;
      readonly lagMs: number;
      readonly queuedMs?: number;
    }
  /** Overload: cuts the limit, counts for the breaker. */
  | { readonly kind: 'dropped'; readonly status?: number; readonly retryAfterMs?: number }
  /** Given up as hung: a breaker failure, a drop, and one probe in flight until the host answers. */
  | { readonly kind: 'hung' }
  /** Not an overload signal (500): counts for the breaker only. */
  | { readonly kind: 'failure'; readonly status?: number }
  /** Says nothing about the server. */
  | { readonly kind: 'ignore' };

export interface Permit {
  /** Exactly once per permit; further calls are ignored. */
  release(outcome: Outcome): void;
  /** The politeness gap counts from here, not from the admit (robots.txt may be fetched in between). */
  requestStarting?(): void;
}

export interface HostSnapshot {
  readonly host: string;
  readonly limit: number;
  readonly inflight: number;
  readonly breaker: 'closed' | 'halfOpen' | 'open';
  /** Epoch ms. */
  readonly pausedUntil?: number;
}

export interface ControlPlane {
  /** `kind`: what will serve the request. @default 'http' */
  admit(host: string, kind?: FetcherKind): Admission;
  /** Returns an unsubscribe. */
  onAvailable(listener: () => void): () => void;
  fetcherChanged?(host: string, kind: FetcherKind): void;
  hostLimit(host: string): number;
  breakerRetryInMs(host: string): number;
  inflight(): number;
  globalLimit(): number;
  hostSnapshots(): Iterable<HostSnapshot>;
}
