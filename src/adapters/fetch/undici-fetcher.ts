import { setImmediate as nextLoopTurn } from 'node:timers/promises';
import { Agent, type Dispatcher } from 'undici';
import {
  AbortedError,
  BodyTooLargeError,
  ContentTypeError,
  ProxyError,
  RedirectOutOfScopeError,
  TotalTimeoutError,
} from '../../core/errors.js';
import type { Fetcher, FetchRequest, FetchResponse } from '../../ports/fetcher.js';
import { parseContentEncoding, readBody } from './decode.js';
import { capturing } from './exchange-capture.js';
import { resolveFetcherOptions, type UndiciFetcherOptions } from './fetch-options.js';
import { guardedConnector } from './guarded-lookup.js';
import { hedged } from './hedged.js';
import { flattenHeaders, headerValue, mediaType, parseUrl, requestTarget } from './http-parts.js';
import { lightDispatcherFactory } from './light-pool.js';
import { toFetchError } from './map-error.js';
import { asProxyError } from './proxy.js';
import { ProxyRouter } from './proxy-router.js';
import { type Hop, isRedirect, RedirectChain } from './redirects.js';
import { checkLiteralHost, checkTargetForProxy } from './ssrf-checks.js';
import { refreshTarget, setCookieLines, withCookies } from './stateful-hops.js';
import { type HopTiming, type HopWatch, timedDispatcher } from './timing.js';

/** Redirect bodies are read (so the socket can be reused) only up to this size. */
const REDIRECT_DRAIN_LIMIT = 64 * 1024;

const noop = () => {};

type ResponseData = Dispatcher.ResponseData<null>;
/** A request sent and answered: its response (headers read, body to come) and its timing. */
type Sent = { res: ResponseData; timing: HopTiming; dispatchedAt: number; body: ResponseData['body'] };

/** Fetcher on an undici Agent: pooled keep-alive, SSRF-guarded, capped and timed. */
export class UndiciFetcher implements Fetcher {
  readonly options: UndiciFetcherOptions;
  readonly #agent: Agent;
  /** The agent belongs to another fetcher (a variant): close() leaves it to that one. */
  readonly #borrowed: boolean;
  readonly #baseHeaders: Readonly<Record<string, string>>;
  readonly #proxies: ProxyRouter;

  constructor(options: Partial<UndiciFetcherOptions> = {}, sharedAgent?: Agent) {
    const o = resolveFetcherOptions(options);
    this.options = o;
    this.#proxies = new ProxyRouter(o);
    this.#borrowed = sharedAgent !== undefined;
    this.#agent =
      sharedAgent ??
      new Agent({
        connections: o.connectionsPerHost,
        pipelining: 1,
        factory: lightDispatcherFactory,
        // Not undici's 10 minutes: the agent keeps a pool per host while a connection lives, so
        // a wide crawl holds the pools of the last 10 s of hosts only.
        keepAliveMaxTimeout: 10_000,
        headersTimeout: o.headersTimeoutMs,
        bodyTimeout: o.bodyTimeoutMs,
        connect: guardedConnector({
          policy: o.addressPolicy,
          connectTimeoutMs: o.connectTimeoutMs,
          ...(o.lookup ? { lookup: o.lookup } : {}),
          ...(o.ca ? { ca: o.ca } : {}),
          ...(o.timeouts ? { timeouts: o.timeouts } : {}),
        }),
      });
    this.#baseHeaders = {
      'user-agent': o.userAgent,
      accept: o.acceptContentTypes.join(', '),
      'accept-encoding': 'gzip, deflate, br',
    };
  }

  async fetch(request: FetchRequest): Promise<FetchResponse> {
    const startedAt = performance.now();
    const callerSignal = request.signal;
    if (callerSignal?.aborted) throw new AbortedError(`${request.url}: aborted before start`);

    // One signal for the caller's abort and the total budget; undici may report either as a
    // generic abort, so which one fired is read from state afterwards.
    const controller = new AbortController();
    let timedOut = false;
    const onAbort = () => controller.abort(callerSignal?.reason);
    callerSignal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new TotalTimeoutError(`exceeded totalTimeoutMs ${this.options.totalTimeoutMs}`));
    }, this.options.totalTimeoutMs);
    timer.unref();

    const progress = { url: request.url };
    try {
      return await this.#fetchChain(request, controller.signal, progress, startedAt);
    } catch (err) {
      if (callerSignal?.aborted) throw new AbortedError(`${progress.url}: aborted`, { cause: err });
      if (timedOut) {
        throw new TotalTimeoutError(
          `${progress.url}: exceeded totalTimeoutMs ${this.options.totalTimeoutMs}`,
          {
            cause: err,
          },
        );
      }
      throw toFetchError(err, progress.url);
    } finally {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onAbort);
    }
  }

  /** A fetcher with other limits (robots.txt's) on this one's pool and guard; its close() closes nothing. */
  variant(
    overrides: Partial<
      Pick<
        UndiciFetcherOptions,
        'maxRedirects' | 'maxBodyBytes' | 'maxDecodedBytes' | 'truncateBody' | 'acceptContentTypes'
      >
    >,
  ): UndiciFetcher {
    return new UndiciFetcher({ ...this.options, ...overrides }, this.#agent);
  }

  async close(): Promise<void> {
    await Promise.all([
      // destroy: close waits for each idle keep-alive socket to go, slow with thousands of hosts.
      this.#borrowed ? undefined : this.#agent.destroy(),
      this.#proxies.close(),
    ]);
  }

  async #fetchChain(
    request: FetchRequest,
    signal: AbortSignal,
    progress: { url: string },
    startedAt: number,
  ): Promise<FetchResponse> {
    const url = parseUrl(request.url);
    const headers: Record<string, string> = { ...this.#baseHeaders };
    for (const [k, v] of Object.entries(request.headers ?? {})) headers[k.toLowerCase()] = v;
    let hop: Hop = {
      url,
      method: (request.method ?? 'GET').toUpperCase(),
      headers,
      ...(request.body !== undefined ? { body: request.body } : {}),
    };
    const chain = new RedirectChain(this.options.maxRedirects);
    const jar = request.cookieJar;
    let cookies = jar ? await jar.cookieHeader(url) : '';

    for (;;) {
      progress.url = hop.url.href;
      chain.enter(hop.url, cookies);
      checkLiteralHost(this.options.addressPolicy, hop.url);
      const res = await this.#send(request, hop, withCookies(hop.headers, cookies), signal);
      // Late errors on an abandoned body must never become uncaught exceptions.
      res.body.on('error', noop);
      if (jar) await jar.storeResponse(hop.url, setCookieLines(res.res.headers['set-cookie']));
      const location = headerValue(res.res.headers['location']);
      if (isRedirect(res.res.statusCode, location)) {
        await res.res.body.dump({ limit: REDIRECT_DRAIN_LIMIT }).catch(noop);
        hop = this.#follow(request, chain.next(hop, res.res.statusCode, location));
        cookies = jar ? await jar.cookieHeader(hop.url) : '';
        continue;
      }
      const ttfbMs =
        (res.timing.responseStart ?? performance.now()) - (res.timing.requestStart ?? res.dispatchedAt);
      let done: FetchResponse;
      try {
        done = await this.#finish(hop, res.res, {
          redirects: chain.visited,
          ttfbMs,
          queuedMs: res.timing.responseQueued ?? 0,
          startedAt,
        });
      } catch (err) {
        res.res.body.destroy();
        throw err;
      }
      const target = refreshTarget(hop, done, this.options.maxRefreshDelaySeconds);
      if (target === undefined) return done;
      const targetCookies = jar ? await jar.cookieHeader(target) : '';
      // A refresh that loops or passes the hop budget: the page that asks for it is the answer.
      if (chain.repeats(target, targetCookies) || chain.spent) return done;
      hop = this.#follow(request, chain.refresh(hop, target));
      cookies = targetCookies;
    }
  }

  /** The redirect hop, if the request's scope allows it; else the fetch ends out of scope. */
  #follow(request: FetchRequest, next: Hop): Hop {
    if (request.followRedirect?.(next.url) === false) {
      throw new RedirectOutOfScopeError(`redirect to ${next.url.origin} leaves the job's scope`);
    }
    return next;
  }

  /** Hedged (fetch.hedge) only when idempotent and the host's p95 is known. */
  async #send(
    request: FetchRequest,
    hop: Hop,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<Sent> {
    const hedge = this.options.hedge;
    const host = hop.url.host;
    const idempotent = (hop.method === 'GET' || hop.method === 'HEAD') && hop.body === undefined;
    const delayMs = hedge && idempotent ? hedge.delayFor(host) : undefined;
    const sent =
      hedge && delayMs !== undefined
        ? await hedged((s) => this.#attempt(request, hop, headers, s), signal, {
            delayMs,
            take: () => hedge.take(),
            onHedge: (result) => this.options.onHedge?.(host, result),
          })
        : await this.#attempt(request, hop, headers, signal);
    const { requestStart, responseStart } = sent.timing;
    if (hedge && requestStart !== undefined && responseStart !== undefined)
      hedge.sample(host, responseStart - requestStart);
    return sent;
  }

  /** One request on the wire, directly or through a proxy; proxy failures are told and mapped. */
  async #attempt(
    request: FetchRequest,
    hop: Hop,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<Sent> {
    const proxy = this.#proxies.pick(hop.url, request.proxy);
    if (proxy) await checkTargetForProxy(this.options.addressPolicy, this.options.lookup, hop.url);
    const timing: HopTiming = {};
    const dispatchedAt = performance.now();
    const o = this.options;
    // Through a proxy the time to headers is the proxy's too: its host learns nothing from it.
    const watch: HopWatch | undefined =
      o.timeouts?.enabled && !proxy
        ? {
            timeouts: o.timeouts,
            host: hop.url.host,
            url: hop.url.href,
            headersTimeoutMs: o.headersTimeoutMs,
            bodyTimeoutMs: o.bodyTimeoutMs,
          }
        : undefined;
    let res: ResponseData;
    try {
      const capture = this.options.tap && capturing(this.options, request.jobId, hop);
      const dispatcher = timedDispatcher(proxy?.agent ?? this.#agent, timing, watch, capture);
      res = await dispatcher.request({
        origin: hop.url.origin,
        path: requestTarget(hop.url),
        method: hop.method as Dispatcher.HttpMethod,
        headers,
        body: hop.body ?? null,
        signal,
      });
    } catch (err) {
      const pe = proxy && !signal.aborted ? asProxyError(err, proxy.index) : undefined;
      if (pe && proxy) {
        proxy.failed();
        this.options.onProxy?.(proxy.index, pe.reason);
        throw pe;
      }
      throw err;
    }
    if (proxy && res.statusCode === 407) {
      res.body.destroy();
      proxy.failed();
      this.options.onProxy?.(proxy.index, 'proxy_auth');
      throw new ProxyError(`proxy #${proxy.index} answered 407 Proxy Authentication Required`, true);
    }
    if (proxy) {
      proxy.succeeded();
      this.options.onProxy?.(proxy.index, 'ok');
    }
    return { res, timing, dispatchedAt, body: res.body };
  }

  async #finish(
    hop: Hop,
    res: ResponseData,
    meta: { redirects: readonly string[]; ttfbMs: number; queuedMs: number; startedAt: number },
  ): Promise<FetchResponse> {
    const headers = flattenHeaders(res.headers);
    const contentType = mediaType(headers['content-type']);
    const base = {
      url: hop.url.href,
      status: res.statusCode,
      headers,
      contentType,
      redirects: meta.redirects,
      ttfbMs: meta.ttfbMs,
      queuedMs: meta.queuedMs,
    };
    const skip = (): FetchResponse => {
      res.body.destroy();
      return { ...base, body: Buffer.alloc(0), wireBytes: 0, totalMs: performance.now() - meta.startedAt };
    };
    if (hop.method === 'HEAD') return skip();
    if (!this.#accepts(contentType)) {
      // Non-2xx keeps its status for the caller to classify; only a 2xx of the wrong type is an error.
      if (res.statusCode < 200 || res.statusCode > 299) return skip();
      throw new ContentTypeError(`${hop.url.href}: content type ${JSON.stringify(contentType)} not accepted`);
    }
    const declared = Number(headers['content-length']);
    if (Number.isFinite(declared) && declared > this.options.maxBodyBytes && !this.options.truncateBody) {
      throw new BodyTooLargeError(
        `${hop.url.href}: Content-Length ${declared} exceeds maxBodyBytes ${this.options.maxBodyBytes}`,
      );
    }
    const codings = parseContentEncoding(headers['content-encoding']);
    const { body, wireBytes } = await readBody(res.body, codings, this.options);
    // undici frees a keep-alive connection a loop turn after the response ends: a request sent
    // sooner (robots.txt, then the first page) would open a second connection (docs/history.md).
    await nextLoopTurn();
    return { ...base, body, wireBytes, totalMs: performance.now() - meta.startedAt };
  }

  #accepts(contentType: string): boolean {
    // No Content-Type at all: let the parser sniff rather than drop the page.
    if (contentType === '') return true;
    return this.options.acceptContentTypes.some((t) =>
      t.endsWith('/*') ? contentType.startsWith(t.slice(0, -1)) : t === contentType,
    );
  }
}
