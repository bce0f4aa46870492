/** The demo site's options, defaults and the shape of its handle and stats (site.ts starts it). */

/**
 * A deterministic synthetic shop for demos, tests and benchmarks (comparable to the peers'
 * bench/site.mjs: ~15 KB pages, about 10 related links each, keep-alive).
 *
 * Pages: page 0 is '/', page i is '/p/<i>' (0 < i < pages; '/p/0' redirects to '/'). Page i
 * links to 2i+1 and 2i+2 (a binary tree, so every page is reachable from '/') plus 8
 * pseudo-random pages; every link points at an existing page. Content depends only on
 * (seed, i, price epoch), so two sites with the same seed serve identical bytes.
 */
export interface DemoSiteOptions {
  /** 0 picks a free port. */
  readonly port: number;
  readonly host: string;
  readonly pages: number;
  /** Delay before every response except /__stats. */
  readonly latencyMs: number;
  /** Fraction of page requests answered 500, deterministic per (path, nth request for it). */
  readonly errorRate: number;
  /**
   * Requests in flight the site handles at `latencyMs`. Beyond it, a request arriving as the
   * n-th in flight waits latencyMs × n / capacity: throughput saturates at capacity/latencyMs
   * and latency grows linearly, like a queueing server, so an adaptive limiter can find the
   * knee. Only shapes latency when latencyMs > 0. Unset: unlimited.
   */
  readonly capacity: number | undefined;
  readonly seed: number;
  /** Current price epoch; prices change when it does. Overridden by setPriceEpoch(). */
  readonly priceEpoch: (() => number) | undefined;
  /**
   * Fraction of pages whose price changes at each new epoch (deterministic per page and
   * epoch). Unset: every page changes at every epoch.
   */
  readonly changeRate: number | undefined;
  /** JavaScript mode (js-shell.ts): product pages are shells rendering /api/p/<i>.json. */
  readonly js: boolean;
}

export const DEFAULT_DEMO_SITE: DemoSiteOptions = {
  port: 0,
  host: '127.0.0.1',
  pages: 1000,
  latencyMs: 0,
  errorRate: 0,
  capacity: undefined,
  seed: 1,
  priceEpoch: undefined,
  changeRate: undefined,
  js: false,
};

export interface DemoSiteStats {
  /** Every request except /__stats. */
  readonly requests: number;
  readonly inflight: number;
  readonly maxInflight: number;
  /** 200 responses for product pages. */
  readonly pagesServed: number;
  /** Injected 500s. */
  readonly errors: number;
  /** 304 Not Modified answers to conditional requests for product pages. */
  readonly notModified: number;
  readonly bytes: number;
}

export interface DemoSite {
  /** Origin without a trailing slash, e.g. http://127.0.0.1:8300. */
  readonly url: string;
  readonly port: number;
  stats(): DemoSiteStats & { readonly byPath: Readonly<Record<string, number>> };
  setPriceEpoch(epoch: number): void;
  /** Switches JavaScript mode while the site runs: a shop that starts rendering client-side. */
  setJs(on: boolean): void;
  close(): Promise<void>;
}
