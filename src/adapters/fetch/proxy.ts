/**
 * Egress through HTTP(S) proxies: rotation and a breaker per proxy. A proxy is named by its
 * index, never by its URL (which may hold credentials).
 */
import { ProxyAgent } from 'undici';
import { ProxyError } from '../../core/errors.js';
import { lightDispatcherFactory } from './light-pool.js';

/** Per target scheme a proxy list (empty: direct). */
export interface ProxySettings {
  readonly http: readonly string[];
  readonly https: readonly string[];
  /** NO_PROXY entries: host names (matching subdomains too), `.suffix`, `host:port`, IPs, `*`. */
  readonly noProxy: readonly string[];
}

export type ProxyResult = 'ok' | 'proxy_error' | 'proxy_auth';

export function proxyIndexes(settings: ProxySettings, extra: readonly string[] = []): Map<string, number> {
  const out = new Map<string, number>();
  for (const u of [...settings.http, ...settings.https, ...extra]) if (!out.has(u)) out.set(u, out.size);
  return out;
}

export const NO_PROXY: ProxySettings = Object.freeze({ http: [], https: [], noProxy: [] });

/** Upper case wins over lower case, as curl does for most. */
export function proxySettingsFromEnv(env: NodeJS.ProcessEnv): ProxySettings {
  const get = (name: string) => env[name] ?? env[name.toLowerCase()];
  const list = (v: string | undefined) => (v ? [v.trim()].filter((s) => s !== '') : []);
  return {
    http: list(get('HTTP_PROXY')),
    https: list(get('HTTPS_PROXY')),
    noProxy: (get('NO_PROXY') ?? '')
      .split(/[\s,]+/)
      .map((s) => s.trim().toLowerCase())
      .filter((s) => s !== ''),
  };
}

export function bypassesProxy(noProxy: readonly string[], hostname: string, port: number): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  for (const raw of noProxy) {
    if (raw === '*') return true;
    let entry = raw;
    const m = /^(.*):(\d+)$/.exec(entry);
    if (m && !entry.includes('::')) {
      if (Number(m[2]) !== port) continue;
      entry = m[1] ?? '';
    }
    entry = entry.replace(/^\*?\./, '.').replace(/^\[|\]$/g, '');
    if (
      entry.startsWith('.')
        ? host.endsWith(entry) || host === entry.slice(1)
        : host === entry || host.endsWith(`.${entry}`)
    )
      return true;
  }
  return false;
}

export function proxyUrlProblem(raw: string): string | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'must be an http:// or https:// proxy URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'must be an http:// or https:// proxy URL';
  if (u.pathname !== '/' || u.search !== '' || u.hash !== '') return 'must have no path, query or fragment';
  return undefined;
}

/** Open (out of rotation) this long after a failure, doubling per consecutive failure. */
const OPEN_BASE_MS = 5_000;
const OPEN_MAX_MS = 300_000;

interface Entry {
  readonly index: number;
  readonly agent: ProxyAgent;
  failures: number;
  openUntil: number;
}

export interface ProxyUse {
  readonly index: number;
  readonly agent: ProxyAgent;
  succeeded(): void;
  failed(): void;
}

/** Round-robin over closed breakers; all open: ProxyError, retried later rather than sent direct. */
export class ProxyPool {
  readonly #entries: Entry[];
  #next = 0;

  readonly #now: () => number;

  constructor(
    urls: readonly string[],
    agentOptions: {
      connections: number;
      headersTimeout: number;
      bodyTimeout: number;
      connectTimeoutMs: number;
    },
    indexes: readonly number[],
    now: () => number = () => performance.now(),
  ) {
    this.#now = now;
    this.#entries = urls.map((uri, i) => ({
      index: indexes[i] ?? i,
      // proxyTunnel false: http targets as absolute-form requests, https targets via CONNECT.
      agent: new ProxyAgent({
        uri,
        proxyTunnel: false,
        connections: agentOptions.connections,
        factory: lightDispatcherFactory,
        headersTimeout: agentOptions.headersTimeout,
        bodyTimeout: agentOptions.bodyTimeout,
        proxyTls: { timeout: agentOptions.connectTimeoutMs },
        requestTls: { timeout: agentOptions.connectTimeoutMs },
      }),
      failures: 0,
      openUntil: 0,
    }));
  }

  get size(): number {
    return this.#entries.length;
  }

  pick(): ProxyUse {
    const now = this.#now();
    for (let k = 0; k < this.#entries.length; k++) {
      const e = this.#entries[(this.#next + k) % this.#entries.length];
      if (!e || e.openUntil > now) continue;
      this.#next = (this.#next + k + 1) % this.#entries.length;
      return {
        index: e.index,
        agent: e.agent,
        succeeded: () => {
          e.failures = 0;
        },
        failed: () => {
          e.failures++;
          e.openUntil = this.#now() + Math.min(OPEN_MAX_MS, OPEN_BASE_MS * 2 ** (e.failures - 1));
        },
      };
    }
    throw new ProxyError('every proxy is out of rotation after failures; retry later', false);
  }

  async close(): Promise<void> {
    await Promise.all(this.#entries.map((e) => e.agent.destroy()));
  }
}

const PROXY_CONNECTION_CODES = new Set([
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** A ProxyError when the proxy is to blame (407, CONNECT refused, its connection failed). */
export function asProxyError(err: unknown, index: number): ProxyError | undefined {
  const e = err as { message?: unknown; code?: unknown; cause?: unknown } | null;
  const message = typeof e?.message === 'string' ? e.message : '';
  const code = typeof e?.code === 'string' ? e.code : undefined;
  if (/Proxy Authentication Required|Proxy response \(407\)/.test(message))
    return new ProxyError(`proxy #${index} answered 407 Proxy Authentication Required`, true);
  const status = /Proxy response \((\d+)\)/.exec(message)?.[1];
  if (status) return new ProxyError(`proxy #${index} refused CONNECT with ${status}`, false);
  if (code !== undefined && PROXY_CONNECTION_CODES.has(code))
    return new ProxyError(`proxy #${index}: connection failed or closed (${code})`, false);
  if (e?.cause !== undefined && e.cause !== err) return asProxyError(e.cause, index);
  return undefined;
}
