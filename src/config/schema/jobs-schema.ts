import { z } from 'zod';
import { JOB_LIMIT_BOUNDS } from '../../core/job-gate.js';
import { recrawlIssues } from '../cross-checks.js';
import { nonNegativeInt, numberIn, positiveInt, positiveMs, priority } from '../units.js';
import { hostPattern, httpUrl, proxyChoice, regex } from './common-schema.js';
import { extractSchema } from './extract-schema.js';
import { renderSchema } from './render-schema.js';
import { cookiesSchema, requestSchema } from './request-schema.js';
import { trapsSchema } from './traps-schema.js';

/** jobs[]: one crawl job, its seeds, scope, requests, extraction, recrawls and limits. */
export const jobSchema = z
  .strictObject({
    id: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, { message: 'must be 1-64 letters, digits, dot, dash or underscore' }),
    seeds: z.array(httpUrl).min(1),
    seedPriority: priority.default(0),
    scope: z
      .strictObject({
        /**
         * Hosts crawled. @default the seeds' hosts, their www./apex twins and the hosts the
         * seeds redirect to (docs/politeness.md)
         */
        hosts: z.array(hostPattern).optional(),
        /**
         * Widen the default scope to every host of the seeds' registrable domains (Public
         * Suffix List): `shop.example` then covers `img.shop.example`. @default false
         */
        sameSite: z.boolean().default(false),
        include: z.array(regex).default([]),
        exclude: z.array(regex).default([]),
        /**
         * Links are followed from pages at depth < maxDepth. The trap rules (`traps`) keep a crawl
         * out of endless URL spaces, so this is a backstop, deep enough for a 98-page listing.
         */
        maxDepth: nonNegativeInt.default(100),
        /**
         * Links taken from one page, in document order; the rest are counted and dropped, so a
         * hostile page with 100 000 links cannot flood the frontier.
         */
        maxLinksPerPage: positiveInt.default(10_000),
      })
      .prefault({}),
    normalise: z
      .strictObject({ stripTracking: z.boolean().default(true), sortQuery: z.boolean().default(true) })
      .prefault({}),
    /** Trap defences: session ids, repeated paths, near-duplicate series, soft 404s (docs/traps.md). */
    traps: trapsSchema,
    extract: extractSchema.optional(),
    /** Method, headers (secrets as ${ENV}), body and cookies of every request of the job. */
    request: requestSchema.prefault({}),
    /** The job's cookie jar: on by default, as in browsers, wget and Scrapy. */
    cookies: cookiesSchema.prefault({}),
    /** http: fetch with undici; browser: render in headless Chromium first (docs/browser.md). */
    render: renderSchema,
    /**
     * Politeness (docs/politeness.md). true: obey robots.txt (disallowed URLs skipped,
     * Crawl-delay honoured) and meta robots / X-Robots-Tag; false: neither. The object form sets
     * each: `txt`, `meta` (nofollow: no links followed; noindex: the record says `noindex: true`),
     * `dropNoindex` (noindex pages write no record).
     */
    robots: z
      .union([
        z.boolean(),
        z.strictObject({
          txt: z.boolean().default(true),
          meta: z.boolean().default(true),
          dropNoindex: z.boolean().default(false),
        }),
      ])
      .default(true),
    /** Compare extracted fields with the previous crawl and write change records. @default true when recrawlIntervalMs is set */
    detectChanges: z.boolean().optional(),
    /**
     * Recrawl every page of the job this long after it was fetched. Recrawls are conditional
     * (If-None-Match / If-Modified-Since from the page's last 200; docs/recrawl.md).
     */
    recrawlIntervalMs: positiveInt.optional(),
    /**
     * Adaptive recrawl intervals, starting from recrawlIntervalMs: a page that did not change
     * waits longer next time, one that changed comes back sooner, within [min, max].
     */
    recrawl: z
      .strictObject({
        minIntervalMs: positiveInt,
        maxIntervalMs: positiveInt,
        adaptive: z.boolean().default(true),
      })
      .optional(),
    /** The job's proxies (a URL or a list), overriding fetch.proxy; false: direct. */
    proxy: proxyChoice.optional(),
    /** Write a record (`status: 304, unchanged: true`) for a recrawl the server answered 304. */
    recordUnchanged: z.boolean().default(true),
    /**
     * The job's own limits at each host it crawls, on top of the host's: e.g. an API's
     * contracted rate. Per daemon (not shared through Redis).
     */
    limits: z
      .strictObject({
        maxConcurrency: numberIn(JOB_LIMIT_BOUNDS.maxConcurrency).optional(),
        ratePerSec: numberIn(JOB_LIMIT_BOUNDS.ratePerSec).optional(),
        burst: numberIn(JOB_LIMIT_BOUNDS.burst).optional(),
      })
      .optional(),
    /** Sitemaps as a seed source (docs/sitemaps.md). */
    sitemaps: z
      .strictObject({
        /** Sitemap or sitemap-index URLs (XML, plain text, or gzipped). */
        urls: z.array(httpUrl).default([]),
        /** Also read the Sitemap: lines of each seed host's robots.txt. */
        fromRobots: z.boolean().default(true),
        /** Page URLs taken per discovery (sitemaps.org allows 50 000 per file). */
        maxUrls: positiveInt.default(50_000),
        /** Sitemap files fetched per discovery, indexes included. */
        maxSitemaps: positiveInt.default(50),
        /** Largest sitemap after decompression. */
        maxBytes: positiveInt.default(52_428_800),
        /** @default the job's seedPriority */
        priority: priority.optional(),
        /** Re-read the sitemaps this often; pages whose lastmod moved forward are recrawled. */
        refreshIntervalMs: positiveMs.optional(),
        /** Also enqueue the xhtml:link rel="alternate" pages of each <url> (other languages). */
        alternates: z.boolean().default(false),
      })
      .optional(),
  })
  .superRefine(recrawlIssues);
