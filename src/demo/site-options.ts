/**
 * A deterministic synthetic shop (as the peers' bench/site.mjs: ~15 KB pages, ~10 links each).
 * Page i links to 2i+1 and 2i+2 (so every page is reachable from '/') plus 8 pseudo-random
 * pages; two sites with the same seed serve identical bytes.
 */
export interface DemoSiteOptions {
  /** 0 picks a free port. */
  readonly port: number;
  readonly host: string;
  readonly pages: number;
  readonly latencyMs: number;
  /** Fraction of page requests answered 500, deterministic per (path, nth request for it). */
  readonly errorRate: number;
  /**
   * Requests in flight served at `latencyMs`; beyond it, the n-th waits latencyMs × n / capacity,
   * like a queueing server, so an adaptive limiter can find the knee. Unset: unlimited.
   */
  readonly capacity: number | undefined;
  readonly seed: number;
  readonly priceEpoch: (() => number) | undefined;
  /** Fraction of pages whose price changes at each new epoch. Unset: every page. */
  readonly changeRate: number | undefined;
  /** Product pages are shells rendering /api/p/<i>.json (js-shell.ts). */
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
  readonly requests: number;
  readonly inflight: number;
  readonly maxInflight: number;
  readonly pagesServed: number;
  readonly errors: number;
  readonly notModified: number;
  readonly bytes: number;
}

export interface DemoSite {
  readonly url: string;
  readonly port: number;
  stats(): DemoSiteStats & { readonly byPath: Readonly<Record<string, number>> };
  setPriceEpoch(epoch: number): void;
  setJs(on: boolean): void;
  close(): Promise<void>;
}
