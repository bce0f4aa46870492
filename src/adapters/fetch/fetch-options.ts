import type { LookupFunction } from 'node:net';
import { type AddressPolicy, compileAllowList, DEFAULT_ADDRESS_POLICY } from '../../core/address.js';
import { type Bound, describeBound, inBound } from '../../core/bound.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { FETCH_LIMIT_BOUNDS, type FetchLimits, fetchLimitDefaults } from '../../core/fetch-limits.js';
import type { HedgePolicy } from '../../core/hedge.js';
import type { HostTimeouts } from '../../core/host-timeout.js';
import type { ExchangeTap } from '../../ports/fetcher.js';
import { NO_PROXY, type ProxyResult, type ProxySettings, proxyUrlProblem } from './proxy.js';

/** Number limits, defaults and bounds live in core/fetch-limits.ts. */
export interface UndiciFetcherOptions extends FetchLimits {
  readonly userAgent: string;
  /** Return a too-large 2xx body's head instead of failing (robots.txt, RFC 9309 §2.5). @default false */
  readonly truncateBody?: boolean;
  /** Media types whose 2xx bodies are downloaded; 'type/*' wildcards allowed. */
  readonly acceptContentTypes: readonly string[];
  readonly addressPolicy: AddressPolicy;
  /** Tests inject one to map names to local servers. */
  readonly lookup?: LookupFunction;
  /** Trusted CA certificates (PEM) for https; unset: Node's default list (and NODE_EXTRA_CA_CERTS). */
  readonly ca?: readonly string[];
  /** Proxies per target scheme and NO_PROXY (fetch.proxy or the environment). */
  readonly proxy: ProxySettings;
  /** Jobs' proxies, indexed after proxy.http and proxy.https so an index (a metric label) is stable. */
  readonly extraProxies?: readonly string[];
  readonly onProxy?: (index: number, result: ProxyResult) => void;
  /** Told every exchange as it crossed the wire (WARC archives); unset, nothing is captured. */
  readonly tap?: ExchangeTap;
  /** fetch.adaptiveTimeout: a request past its host's learned timeout is hung. */
  readonly timeouts?: HostTimeouts;
  /** Hedged requests (fetch.hedge): a GET that waited past its host's p95 is sent twice. Unset: none. */
  readonly hedge?: HedgePolicy;
  readonly onHedge?: (host: string, result: 'won' | 'lost') => void;
}

export const DEFAULT_FETCHER_OPTIONS: Readonly<
  Omit<UndiciFetcherOptions, 'lookup' | 'ca' | 'timeouts' | 'hedge' | 'onHedge'>
> = Object.freeze({
  userAgent: 'crawld/0.1 (+https://github.com/crawld/crawld)',
  ...fetchLimitDefaults,
  connectionsPerHost: 16,
  acceptContentTypes: Object.freeze([
    'text/html',
    'application/xhtml+xml',
    'application/json',
    'text/plain',
    'application/xml',
    'text/xml',
  ]),
  addressPolicy: DEFAULT_ADDRESS_POLICY,
  proxy: NO_PROXY,
});

function bad(name: string, value: unknown, want: string, bound?: Bound): never {
  throw new InvalidArgumentError(
    `UndiciFetcher option ${name}: expected ${want}, got ${JSON.stringify(value)}`,
    {
      problem: { option: name, value, ...(bound ? { bound } : {}) },
    },
  );
}

function checkLimits(o: FetchLimits): void {
  for (const [name, bound] of Object.entries(FETCH_LIMIT_BOUNDS)) {
    const value = o[name as keyof FetchLimits];
    if (!inBound(value, bound)) bad(name, value, describeBound(bound), bound);
  }
}

/** Every failure names the option and the bad value. */
export function resolveFetcherOptions(input: Partial<UndiciFetcherOptions> = {}): UndiciFetcherOptions {
  const o: UndiciFetcherOptions = { ...DEFAULT_FETCHER_OPTIONS, ...stripUndefined(input) };
  if (typeof o.userAgent !== 'string' || o.userAgent.trim() === '' || /[\r\n]/.test(o.userAgent)) {
    bad('userAgent', o.userAgent, 'a non-empty single-line string');
  }
  checkLimits(o);
  const types = o.acceptContentTypes;
  if (!Array.isArray(types) || types.length === 0) bad('acceptContentTypes', types, 'a non-empty array');
  for (const t of types) {
    if (typeof t !== 'string' || !/^[a-z0-9!#$&^_.+-]+\/(\*|[a-z0-9!#$&^_.+-]+)$/.test(t)) {
      bad('acceptContentTypes', t, 'lower-case media types like "text/html" or "text/*"');
    }
  }
  const policy = o.addressPolicy;
  if (typeof policy !== 'object' || policy === null || typeof policy.allowPrivateNetworks !== 'boolean') {
    bad('addressPolicy', policy, '{ allowPrivateNetworks: boolean, allow: string[] }');
  }
  if (!Array.isArray(policy.allow)) bad('addressPolicy.allow', policy.allow, 'an array of strings');
  compileAllowList(policy.allow);
  for (const url of [...o.proxy.http, ...o.proxy.https, ...(o.extraProxies ?? [])]) {
    const problem = proxyUrlProblem(url);
    // The message never repeats the URL: it may carry credentials.
    if (problem) throw new InvalidArgumentError(`UndiciFetcher option proxy: ${problem}`);
  }
  if (o.lookup !== undefined && typeof o.lookup !== 'function') bad('lookup', typeof o.lookup, 'a function');
  return o;
}

/** `{ maxRedirects: undefined }` from optional config keeps the default. */
function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
