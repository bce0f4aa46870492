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
        /** @default the seeds' hosts, their www./apex twins and where the seeds redirect */
        hosts: z.array(hostPattern).optional(),
        /** Every host of the seeds' registrable domains (Public Suffix List). @default false */
        sameSite: z.boolean().default(false),
        include: z.array(regex).default([]),
        exclude: z.array(regex).default([]),
        /** A backstop: the trap rules keep a crawl out of endless URL spaces. */
        maxDepth: nonNegativeInt.default(100),
        /** So that a hostile page with 100 000 links cannot flood the frontier. */
        maxLinksPerPage: positiveInt.default(10_000),
      })
      .prefault({}),
    normalise: z
      .strictObject({ stripTracking: z.boolean().default(true), sortQuery: z.boolean().default(true) })
      .prefault({}),
    traps: trapsSchema,
    extract: extractSchema.optional(),
    request: requestSchema.prefault({}),
    /** The job's cookie jar: on by default, as in browsers, wget and Scrapy. */
    cookies: cookiesSchema.prefault({}),
    render: renderSchema,
    /** robots.txt and meta robots / X-Robots-Tag, both or each (docs/politeness.md). */
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
    /** @default true when recrawlIntervalMs is set */
    detectChanges: z.boolean().optional(),
    recrawlIntervalMs: positiveInt.optional(),
    recrawl: z
      .strictObject({
        minIntervalMs: positiveInt,
        maxIntervalMs: positiveInt,
        adaptive: z.boolean().default(true),
      })
      .optional(),
    proxy: proxyChoice.optional(),
    recordUnchanged: z.boolean().default(true),
    /** Per daemon: not shared through Redis. */
    limits: z
      .strictObject({
        maxConcurrency: numberIn(JOB_LIMIT_BOUNDS.maxConcurrency).optional(),
        ratePerSec: numberIn(JOB_LIMIT_BOUNDS.ratePerSec).optional(),
        burst: numberIn(JOB_LIMIT_BOUNDS.burst).optional(),
      })
      .optional(),
    sitemaps: z
      .strictObject({
        urls: z.array(httpUrl).default([]),
        fromRobots: z.boolean().default(true),
        /** sitemaps.org allows 50 000 per file. */
        maxUrls: positiveInt.default(50_000),
        maxSitemaps: positiveInt.default(50),
        maxBytes: positiveInt.default(52_428_800),
        /** @default the job's seedPriority */
        priority: priority.optional(),
        refreshIntervalMs: positiveMs.optional(),
        alternates: z.boolean().default(false),
      })
      .optional(),
  })
  .superRefine(recrawlIssues);
