import { EventEmitter } from 'node:events';
import { type ListenerErrorHandler, reportListenerError, warnListenerError } from './listeners.js';

export type { ListenerErrorHandler } from './listeners.js';

/** Typed events: components emit, metrics, logs and tests subscribe. URLs only where a debug log or test needs them. */
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
  pageDone: {
    jobId: string;
    host: string;
    url: string;
    status: number;
    fields: number;
    extractErrors: number;
    decodeFallback?: boolean;
  };
  retry: { jobId: string; host: string; url: string; reason: string; attempt: number; delayMs: number };
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
    overCap?: number;
  };
  fetchError: {
    jobId: string;
    host: string;
    reason: string;
    code: string;
    phase?: string;
  };
  /** `won`: the second request answered first. */
  hedge: { host: string; result: 'won' | 'lost' };
  throttled: { host: string; reason: 'rate_limit' | 'politeness'; delayMs: number };
  /** `proxy` is the index, never the URL. */
  proxy: { proxy: number; result: 'ok' | 'proxy_error' | 'proxy_auth' };
  unchanged: { jobId: string; host: string; savedBytes: number };
  change: { jobId: string; host: string; url: string; fields: string[] };
  sinkWrite: { sink: string; records: number };
  sinkBatch: { sink: string; records: number; durationMs: number };
  sinkError: { sink: string; reason: string };
  sinkBuffer: { sink: string; depth: number };
  /** `bytes` compressed. */
  warcRecords: {
    records: readonly { type: 'warcinfo' | 'request' | 'response' | 'revisit'; bytes: number }[];
  };
  /** `recovered`: left open by a crash. */
  warcFileClosed: { file: string; records: number; bytes: number; recovered: boolean };
  warcOpenFile: { bytes: number };
  /** A seed redirected to `host`, which joins its job's scope (never a metric label). */
  scopeWidened: { jobId: string; host: string; from: string };
  /** `outcome`: one of ROBOTS_OUTCOMES (a bounded label). */
  robotsFetch: { host: string; outcome: string };
  cookie: { jobId: string; outcome: 'stored' | 'rejected' };
  cookieStoreError: { jobId: string; op: 'load' | 'write' | 'sync'; error: unknown };
  renderPath: { jobId: string; path: 'http' | 'browser' | 'both' };
  renderDecision: { jobId: string; host: string; decision: 'http' | 'browser' };
  renderDisagreement: { jobId: string; foundBy: 'sample' | 'recheck' | 'missing_field' };
  /** Its lease will expire and the task comes back. */
  internalError: { where: string; error: unknown };
  browserRender: { seconds: number };
  browserContextClosed: { pages: number };
  browserRestart: { reason: string };
  browserCrash: Record<string, never>;
  /** `reason`: one of BLOCKED_REQUEST_REASONS. */
  browserBlocked: { reason: string };
  browserRss: { bytes: number };
  /** `reason`: one of TRAP_REASONS (core/traps/trap-options.ts). */
  trap: { jobId: string; host: string; reason: string; urls: number };
  /** `what` is a parameter name, a pattern or a soft 404 kind: never a URL with its session id. */
  trapLearned: { jobId: string; host: string; kind: 'param' | 'pattern' | 'soft_404'; what: string };
  idle: Record<string, never>;
  paused: Record<string, never>;
  resumed: Record<string, never>;
}

/** emit() never throws (graphile-worker's safeEmit): a listener that threw once ended the crawl loop. */
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
