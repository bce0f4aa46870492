import Bottleneck from 'bottleneck';
import { request } from 'undici';
import { backoffDelayMs } from '../../core/backoff.js';
import { type Clock, type Random, sleep, systemClock, systemRandom } from '../../core/clock.js';
import { ChangeDeliveryError } from '../../core/errors.js';
import type { ChangeRecord, ChangeSink } from '../../ports/page-state.js';
import { NO_SINK_OBSERVER, type SinkObserver } from '../../ports/sink.js';

export interface WebhookChangeSinkOptions {
  readonly url: string;
  /** Sent with every POST (a shared secret); never logged or reported. */
  readonly headers: Readonly<Record<string, string>>;
  readonly maxAttempts: number;
  readonly backoffBaseMs: number;
  readonly backoffMaxMs: number;
  readonly timeoutMs: number;
  /** POSTs in flight to the endpoint at once; more wait their turn. */
  readonly maxConcurrent: number;
  /** Least time between the starts of two POSTs (0: none). */
  readonly minTimeMs: number;
  readonly observer: SinkObserver;
  readonly clock: Clock;
  readonly random: Random;
}

export const WEBHOOK_DEFAULTS = {
  headers: {},
  maxAttempts: 5,
  backoffBaseMs: 500,
  backoffMaxMs: 30_000,
  timeoutMs: 10_000,
  maxConcurrent: 8,
  minTimeMs: 0,
} as const;

const SINK = 'webhook';

/**
 * POSTs each change record at once; 408, 429, 5xx and network errors are retried (Retry-After
 * ignored: a change must not wait an hour). An undelivered change dead-letters its page
 * ('change_delivery'); at least once, deduped on Idempotency-Key. A limiter per endpoint keeps
 * a recrawl's burst of changes off the receiver; backoff sleeps hold no slot. The operator's
 * URL is not under the SSRF policy (a local receiver is the common case).
 */
export class WebhookChangeSink implements ChangeSink {
  readonly name = SINK;
  readonly #o: WebhookChangeSinkOptions;
  readonly #inflight = new Set<Promise<void>>();
  readonly #closing = new AbortController();
  readonly #limiter: Bottleneck;

  constructor(options: Partial<WebhookChangeSinkOptions> & { url: string }) {
    this.#o = {
      ...WEBHOOK_DEFAULTS,
      observer: NO_SINK_OBSERVER,
      clock: systemClock,
      random: systemRandom,
      ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
    } as WebhookChangeSinkOptions;
    this.#limiter = new Bottleneck({ maxConcurrent: this.#o.maxConcurrent, minTime: this.#o.minTimeMs });
  }

  async open(): Promise<void> {}

  write(change: ChangeRecord): Promise<void> {
    const p = this.#deliver(change).finally(() => {
      this.#inflight.delete(p);
      this.#o.observer.bufferDepth({ sink: SINK, depth: this.#inflight.size });
    });
    this.#inflight.add(p);
    this.#o.observer.bufferDepth({ sink: SINK, depth: this.#inflight.size });
    return p;
  }

  /** Waits for deliveries in progress; backoff sleeps are cut short so shutdown stays prompt. */
  async close(): Promise<void> {
    this.#closing.abort();
    await Promise.allSettled([...this.#inflight]);
    await this.#limiter.disconnect();
  }

  async #deliver(change: ChangeRecord): Promise<void> {
    const body = JSON.stringify(change);
    const started = performance.now();
    let last = '';
    for (let attempt = 1; attempt <= this.#o.maxAttempts; attempt++) {
      const key = `${change.taskId}#${change.generation}`;
      const outcome = await this.#limiter.schedule(() => this.#post(body, key));
      if (outcome === 'ok') {
        this.#o.observer.batch({ sink: SINK, records: 1, durationMs: performance.now() - started });
        return;
      }
      last = outcome.reason;
      this.#o.observer.error({ sink: SINK, reason: outcome.reason });
      if (!outcome.retryable || attempt === this.#o.maxAttempts || this.#closing.signal.aborted) break;
      const delay = backoffDelayMs(
        attempt,
        { baseMs: this.#o.backoffBaseMs, maxMs: this.#o.backoffMaxMs, jitter: 'equal' },
        this.#o.random,
      );
      await sleep(this.#o.clock, delay, this.#closing.signal).catch(() => {});
    }
    throw new ChangeDeliveryError(`webhook delivery of a change of ${change.url} failed: ${last}`);
  }

  async #post(body: string, key: string): Promise<'ok' | { reason: string; retryable: boolean }> {
    try {
      const res = await request(this.#o.url, {
        method: 'POST',
        headers: {
          ...this.#o.headers,
          'content-type': 'application/json',
          'idempotency-key': key,
          'user-agent': 'crawld-webhook',
        },
        body,
        headersTimeout: this.#o.timeoutMs,
        bodyTimeout: this.#o.timeoutMs,
        signal: AbortSignal.timeout(this.#o.timeoutMs),
      });
      await res.body.dump().catch(() => {});
      const s = res.statusCode;
      if (s >= 200 && s < 300) return 'ok';
      return { reason: `http_${s}`, retryable: s === 408 || s === 429 || s >= 500 };
    } catch {
      return { reason: 'connection', retryable: true };
    }
  }
}
