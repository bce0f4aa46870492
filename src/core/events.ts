import { EventEmitter } from 'node:events';
import { type ListenerErrorHandler, reportListenerError, warnListenerError } from './listeners.js';

export type { ListenerErrorHandler } from './listeners.js';

/**
 * Typed events, one payload object each. The scheduler and components emit; metrics,
 * logs, the status page and tests subscribe. Algorithms never call metrics or logs.
 * Payloads carry `host` (bounded by the metrics layer) but the URL only where a log at
 * debug level or a test needs it.
 */
export interface CrawlEvents {
  fetched: {
    jobId: string;
    host: string;
    url: string;
    status: number;
    durationMs: number;
    ttfbMs: number;
    wireBytes: number;
    bytes: number;
  };
  /** A page was written to the sinks and acked. */
  pageDone: {
    jobId: string;
    host: string;
    url: string;
    status: number;
    fields: number;
    extractErrors: number;
    /** The page declared a charset the Encoding standard does not know (decoded with the default). */
    decodeFallback?: boolean;
  };
  /** The attempt failed and will be retried. */
  retry: { jobId: string; host: string; url: string; reason: string; attempt: number; delayMs: number };
  /** Deferred without charging an attempt (breaker open, host paused, shutdown). */
  deferred: { jobId: string; host: string; reason: string; delayMs: number };
  deadLettered: { jobId: string; host: string; url: string; reason: string; attempts: number };
  skipped: { jobId: string; host: string; url: string; reason: string };
  links: {
    jobId: string;
    discovered: number;
    added: number;
    duplicates: number;
    dropped: number;
    outOfScope: number;
    /** Links beyond the job's maxLinksPerPage, never looked at. */
    overCap?: number;
  };
  /** A fetch ended in an error (before classification into retry / dead letter). */
  fetchError: {
    jobId: string;
    host: string;
    reason: string;
    code: string;
    /** A hung request's phase (HungRequestError): connect, headers, body or render. */
    phase?: string;
  };
  /** A request was hedged (fetch.hedge): `won`, the second request answered first; `lost`, the first did. */
  hedge: { host: string; result: 'won' | 'lost' };
  /** A host's next request was held back by a token bucket or a politeness delay. */
  throttled: { host: string; reason: 'rate_limit' | 'politeness'; delayMs: number };
  /** A request went through proxy number `proxy` (its index, never its URL). */
  proxy: { proxy: number; result: 'ok' | 'proxy_error' | 'proxy_auth' };
  /** A conditional recrawl got 304: savedBytes is the body size of the page's last 200. */
  unchanged: { jobId: string; host: string; savedBytes: number };
  /** Extracted fields differ from the previous crawl of the page. */
  change: { jobId: string; host: string; url: string; fields: string[] };
  /** Sink write done. */
  sinkWrite: { sink: string; records: number };
  /** A buffering sink stored a batch (PostgreSQL rows, webhook deliveries). */
  sinkBatch: { sink: string; records: number; durationMs: number };
  /** A sink write attempt failed (it may be retried); reason is bounded. */
  sinkError: { sink: string; reason: string };
  /** Records buffered in a sink and not yet stored. */
  sinkBuffer: { sink: string; depth: number };
  /** A WARC sink wrote records (an exchange's, together): `bytes` compressed (docs/archives.md). */
  warcRecords: {
    records: readonly { type: 'warcinfo' | 'request' | 'response' | 'revisit'; bytes: number }[];
  };
  /** A WARC file was closed (renamed, its .cdxj beside it); `recovered`: left open by a crash. */
  warcFileClosed: { file: string; records: number; bytes: number; recovered: boolean };
  /** The size of a WARC sink's open file after a write (0 when none is open). */
  warcOpenFile: { bytes: number };
  /** A seed redirected to `host`, which joins its job's scope (logged; never a metric label). */
  scopeWidened: { jobId: string; host: string; from: string };
  /** A robots.txt fetch ended (outcome: one of ROBOTS_OUTCOMES, adapters/robots/robots-cache.ts). */
  robotsFetch: { host: string; outcome: string };
  /** A Set-Cookie line a job's jar stored or refused (public suffix, foreign domain, size, syntax). */
  cookie: { jobId: string; outcome: 'stored' | 'rejected' };
  /** A job's cookie store failed (load, write, or reading other daemons' changes): the jar goes on from memory. */
  cookieStoreError: { jobId: string; op: 'load' | 'write' | 'sync'; error: unknown };
  /** render kind auto: how a page was fetched (http, browser, or both to compare). */
  renderPath: { jobId: string; path: 'http' | 'browser' | 'both' };
  /** render kind auto: a host decided (here or by another daemon) to use http or the browser. */
  renderDecision: { jobId: string; host: string; decision: 'http' | 'browser' };
  /**
   * render kind auto: HTTP missed what the browser found, on a sample page, a re-check, or a
   * page of an http host missing a required field; the host now uses the browser.
   */
  renderDisagreement: { jobId: string; foundBy: 'sample' | 'recheck' | 'missing_field' };
  /** A task failed inside crawld itself (sink or frontier error); its lease will expire and it comes back. */
  internalError: { where: string; error: unknown };
  /** The browser path (adapters/fetch/browser): one render done, in seconds. */
  browserRender: { seconds: number };
  /** A browser context was replaced after serving `pages` pages. */
  browserContextClosed: { pages: number };
  /** A browser was replaced (reason: crash, rss). */
  browserRestart: { reason: string };
  /** A tab or the whole browser crashed. */
  browserCrash: Record<string, never>;
  /** A request a page made was refused (reason: one of BLOCKED_REQUEST_REASONS). */
  browserBlocked: { reason: string };
  /** RSS of the browser's process tree. */
  browserRss: { bytes: number };
  /**
   * URLs not fetched, or fetched pages not expanded, for a trap rule (reason: one of
   * TRAP_REASONS, core/traps/trap-options.ts). `host` is bounded by the metrics layer.
   */
  trap: { jobId: string; host: string; reason: string; urls: number };
  /**
   * A host taught a job a trap rule: a parameter that does not change its pages, a URL pattern
   * stopped as a near-duplicate series, or its soft 404. `what` is a parameter name, a pattern
   * (numbers abstracted, no values) or the soft 404's kind: never a URL with its session id.
   */
  trapLearned: { jobId: string; host: string; kind: 'param' | 'pattern' | 'soft_404'; what: string };
  idle: Record<string, never>;
  paused: Record<string, never>;
  resumed: Record<string, never>;
}

/**
 * An event emitter whose emit() never throws (graphile-worker's safeEmit): a listener's error
 * is handed to `onListenerError` and the remaining listeners still run. Emitters sit inside
 * the scheduler's pump and the task runner, where a throw from, say, a 'throttled' listener
 * was taken for a frontier failure and ended the crawl loop.
 */
export class TypedEmitter<E extends { [K in keyof E]: object }> {
  readonly #ee = new EventEmitter();
  readonly #onListenerError: ListenerErrorHandler;

  constructor(options: { onListenerError?: ListenerErrorHandler } = {}) {
    this.#ee.setMaxListeners(100);
    this.#onListenerError = options.onListenerError ?? warnListenerError;
  }

  on<K extends keyof E & string>(event: K, listener: (payload: E[K]) => void): () => void {
    const safe = (payload: E[K]) => {
      try {
        listener(payload);
      } catch (error) {
        reportListenerError(this.#onListenerError, event, error);
      }
    };
    this.#ee.on(event, safe);
    return () => this.#ee.off(event, safe);
  }

  once<K extends keyof E & string>(event: K): Promise<E[K]> {
    return new Promise((resolve) => this.#ee.once(event, resolve));
  }

  emit<K extends keyof E & string>(event: K, payload: E[K]): void {
    this.#ee.emit(event, payload);
  }

  listenerCount(event: keyof E & string): number {
    return this.#ee.listenerCount(event);
  }
}

export type CrawlEmitter = TypedEmitter<CrawlEvents>;
