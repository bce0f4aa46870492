import { gunzipSync } from 'node:zlib';
import type { NormaliseOptions, ScopeRules } from '../../core/rules.js';
import { parseSitemap, robotsSitemaps, type SitemapEntry } from '../../core/sitemap.js';
import { discoveredUrl, normaliseInScope } from '../../core/url.js';
import { redactUrl } from '../../observe/logger.js';
import type { Fetcher } from '../../ports/fetcher.js';
import type { EnqueueRequest, EnqueueResult } from '../../ports/frontier.js';
import type { SitemapStateStore } from '../../ports/sitemap-state.js';

export interface SitemapSettings {
  /** Sitemap (or sitemap index) URLs named in the config. */
  readonly urls: readonly string[];
  /** Also read the `Sitemap:` lines of each seed host's robots.txt. */
  readonly fromRobots: boolean;
  /** Page URLs taken from all sitemaps of one discovery, in document order. */
  readonly maxUrls: number;
  /** Sitemap files fetched in one discovery, indexes included. */
  readonly maxSitemaps: number;
  /** Largest sitemap after decompression (a gzip bomb stops here). */
  readonly maxBytes: number;
  readonly priority: number;
  /** Also enqueue each `<url>`'s `xhtml:link rel="alternate"` pages (other languages). @default false */
  readonly alternates?: boolean;
}

export interface SitemapJob {
  readonly id: string;
  readonly seeds: readonly string[];
  readonly scope: ScopeRules;
  readonly normalise: NormaliseOptions;
}

export interface SitemapSeederDeps {
  readonly fetcher: Fetcher;
  /** In the encoding the body declares (adapters/parse/charset.ts decodeXml). */
  readonly decodeXml: (body: Uint8Array, contentType: string | undefined) => string;
  readonly store: SitemapStateStore;
  readonly enqueue: (requests: readonly EnqueueRequest[]) => Promise<EnqueueResult>;
  readonly warn: (message: string, meta: Record<string, unknown>) => void;
}

export interface SitemapDiscovery {
  sitemaps: number;
  /** Sitemap files that could not be fetched or parsed. */
  failed: number;
  urls: number;
  outOfScope: number;
  added: number;
  /** URLs re-enqueued because their lastmod moved forward since the last discovery. */
  updated: number;
  /** A cap (maxUrls or maxSitemaps) cut the discovery short. */
  truncated: boolean;
}

const GZIP_MAGIC = [0x1f, 0x8b] as const;

function sitemapUrl(u: string): ReturnType<typeof discoveredUrl> | undefined {
  try {
    return discoveredUrl(u);
  } catch {
    return undefined;
  }
}

/**
 * Seeds a job from its sitemaps; a later discovery recrawls only pages whose lastmod moved forward.
 * Never throws for what a server sends: failures are counted and the crawl goes on from the seeds.
 */
export class SitemapSeeder {
  readonly #deps: SitemapSeederDeps;

  constructor(deps: SitemapSeederDeps) {
    this.#deps = deps;
  }

  async discover(
    job: SitemapJob,
    settings: SitemapSettings,
    signal?: AbortSignal,
  ): Promise<SitemapDiscovery> {
    const result: SitemapDiscovery = {
      sitemaps: 0,
      failed: 0,
      urls: 0,
      outOfScope: 0,
      added: 0,
      updated: 0,
      truncated: false,
    };
    const queue: string[] = [];
    const queued = new Set<string>();
    // A sitemap is fetched at its URL as written (a `?`, the query's order and parameters kept:
    // sitemap.php?type=products&page=2), and each once by its dedupe key.
    const push = (u: string) => {
      const d = sitemapUrl(u);
      if (d === undefined || queued.has(d.url)) return;
      if (queued.size >= settings.maxSitemaps) {
        result.truncated = true;
        return;
      }
      queued.add(d.url);
      queue.push(d.requestUrl ?? d.url);
    };
    for (const u of settings.urls) push(u);
    if (settings.fromRobots) {
      for (const origin of new Set(job.seeds.map((s) => new URL(s).origin))) {
        const text = await this.#fetchText(`${origin}/robots.txt`, settings, signal);
        if (text !== undefined) for (const u of robotsSitemaps(text)) push(u);
      }
    }

    while (queue.length > 0 && !signal?.aborted) {
      const url = queue.shift()!;
      result.sitemaps++;
      const text = await this.#fetchText(url, settings, signal);
      if (text === undefined) {
        result.failed++;
        continue;
      }
      const doc = parseSitemap(text, Math.max(1, settings.maxUrls - result.urls));
      if (doc.kind === 'unknown') {
        result.failed++;
        this.#deps.warn('sitemap: not a sitemap', { job: job.id, sitemap: redactUrl(url) });
        continue;
      }
      if (doc.kind === 'index') {
        for (const e of doc.entries) push(e.loc);
        continue;
      }
      await this.#enqueuePages(job, settings, doc.entries, result);
      if (doc.truncated || result.urls >= settings.maxUrls) {
        result.truncated = true;
        break;
      }
    }
    return result;
  }

  async #enqueuePages(
    job: SitemapJob,
    settings: SitemapSettings,
    entries: readonly SitemapEntry[],
    result: SitemapDiscovery,
  ): Promise<void> {
    const pages: { url: string; requestUrl?: string | undefined; lastmod?: number }[] = [];
    const take = (loc: string, lastmod: number | undefined) => {
      const v = normaliseInScope(loc, 0, job.scope, job.normalise);
      if (!v.ok) {
        result.outOfScope++;
        return;
      }
      result.urls++;
      const page = v.requestUrl === undefined ? { url: v.url } : { url: v.url, requestUrl: v.requestUrl };
      pages.push(lastmod === undefined ? page : { ...page, lastmod });
    };
    for (const e of entries) {
      if (result.urls >= settings.maxUrls) break;
      take(e.loc, e.lastmod);
      if (settings.alternates !== true) continue;
      for (const alt of e.alternates ?? []) if (result.urls < settings.maxUrls) take(alt, undefined);
    }
    if (pages.length === 0) return;
    const known = await this.#deps.store.lastmods(
      job.id,
      pages.map((p) => p.url),
    );
    const fresh: EnqueueRequest[] = [];
    const moved: EnqueueRequest[] = [];
    for (const p of pages) {
      const before = known.get(p.url);
      const req: EnqueueRequest = {
        url: p.url,
        ...(p.requestUrl !== undefined ? { requestUrl: p.requestUrl } : {}),
        jobId: job.id,
        priority: settings.priority,
        depth: 0,
      };
      if (p.lastmod !== undefined && before !== undefined && p.lastmod > before)
        moved.push({ ...req, force: true });
      else fresh.push(req);
    }
    const a = await this.#deps.enqueue(fresh);
    const b = moved.length > 0 ? await this.#deps.enqueue(moved) : undefined;
    result.added += a.added + (b?.added ?? 0);
    result.updated += moved.length;
    const withLastmod = pages.flatMap((p) =>
      p.lastmod !== undefined ? [{ url: p.url, lastmod: p.lastmod }] : [],
    );
    if (withLastmod.length > 0) await this.#deps.store.setLastmods(job.id, withLastmod);
  }

  /** The decoded text of a 200 response, gunzipped when it is a .gz file; undefined on failure. */
  async #fetchText(
    url: string,
    settings: SitemapSettings,
    signal?: AbortSignal,
  ): Promise<string | undefined> {
    try {
      const res = await this.#deps.fetcher.fetch(signal ? { url, signal } : { url });
      if (res.status !== 200) {
        this.#deps.warn('sitemap: fetch failed', { sitemap: redactUrl(url), status: res.status });
        return undefined;
      }
      let body = res.body;
      if (body[0] === GZIP_MAGIC[0] && body[1] === GZIP_MAGIC[1]) {
        body = gunzipSync(body, { maxOutputLength: settings.maxBytes });
      } else if (body.length > settings.maxBytes) {
        throw new RangeError(`larger than ${settings.maxBytes} bytes`);
      }
      return this.#deps.decodeXml(body, res.headers['content-type']);
    } catch (err) {
      const reason = (err as { code?: string }).code ?? (err as Error).message;
      this.#deps.warn('sitemap: fetch failed', { sitemap: redactUrl(url), reason });
      return undefined;
    }
  }
}
