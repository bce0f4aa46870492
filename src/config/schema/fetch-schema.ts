import { z } from 'zod';
import { FETCH_LIMIT_BOUNDS as B, fetchLimitDefaults as D } from '../../core/fetch-limits.js';
import { HEDGE_BOUNDS, hedgeDefaults } from '../../core/hedge.js';
import { ADAPTIVE_TIMEOUT_BOUNDS as AT, adaptiveTimeoutDefaults as ATD } from '../../core/host-timeout.js';
import { isPemFile } from '../predicates.js';
import { numberIn } from '../units.js';
import { proxyChoice } from './common-schema.js';
import { browserSchema } from './render-schema.js';

/** fetch: how pages are requested (timeouts, size caps, redirects, addresses, TLS, proxies). */
export const fetchSchema = z
  .strictObject({
    userAgent: z.string().min(1).default('crawld/0.1'),
    connectTimeoutMs: numberIn(B.connectTimeoutMs).default(D.connectTimeoutMs),
    headersTimeoutMs: numberIn(B.headersTimeoutMs).default(D.headersTimeoutMs),
    bodyTimeoutMs: numberIn(B.bodyTimeoutMs).default(D.bodyTimeoutMs),
    totalTimeoutMs: numberIn(B.totalTimeoutMs).default(D.totalTimeoutMs),
    maxBodyBytes: numberIn(B.maxBodyBytes).default(D.maxBodyBytes),
    maxDecodedBytes: numberIn(B.maxDecodedBytes).default(D.maxDecodedBytes),
    maxRedirects: numberIn(B.maxRedirects).default(D.maxRedirects),
    /**
     * Meta refresh and Refresh headers of 2xx pages with at most this delay are followed as
     * redirects (Scrapy's METAREFRESH_MAXDELAY); 0 follows only immediate ones.
     */
    maxRefreshDelaySeconds: numberIn(B.maxRefreshDelaySeconds).default(D.maxRefreshDelaySeconds),
    /** Keep-alive pool per origin. Unset: concurrency.maxPerHost, so requests never queue in it. */
    connectionsPerHost: numberIn(B.connectionsPerHost).optional(),
    acceptContentTypes: z
      .array(z.string().min(1))
      .default(['text/html', 'application/xhtml+xml', 'application/json', 'text/plain']),
    allowPrivateNetworks: z.boolean().default(false),
    /** Exact addresses allowed even when private networks are not: 'IP', 'IP:PORT' or CIDR. */
    allowAddresses: z.array(z.string().min(1)).default([]),
    /**
     * Fixed answers before DNS, hostname -> IP (curl's --resolve): a staging server under its
     * production name. The SSRF guard still checks the address. @default {}
     */
    resolve: z
      .record(
        z.string().regex(/^[a-z0-9.-]+$/i, { message: 'must be a hostname' }),
        z.union([z.ipv4(), z.ipv6()]),
      )
      .default({}),
    /** `ca`: a PEM file of CA certificates trusted besides Node's own (a private CA). */
    tls: z
      .strictObject({
        ca: z
          .string()
          .min(1)
          .refine(isPemFile, { message: 'must be a readable PEM file of certificates' })
          .optional(),
      })
      .prefault({}),
    /**
     * HTTP(S) proxy URL, or a list to rotate through; false: direct, whatever the environment.
     * Unset: HTTPS_PROXY / HTTP_PROXY / NO_PROXY. Credentials in the URL (or ${ENV}) are never logged.
     */
    proxy: proxyChoice.optional(),
    /**
     * Timeouts learned per host (docs/control-plane.md, "Learned timeouts"): a request that
     * outlives its host's is given up as hung and retried; the timeouts above are the ceilings.
     */
    adaptiveTimeout: z
      .strictObject({
        /** false: every request waits the configured timeouts, whatever its host's latency. */
        enabled: z.boolean().default(ATD.enabled),
        /** A learned timeout is never shorter than this. */
        floorMs: numberIn(AT.floorMs).default(ATD.floorMs),
        /** The smoothed time plus this many times its mean deviation (RFC 6298's K). */
        factor: numberIn(AT.factor).default(ATD.factor),
        /** A learned timeout is at least this many times the smoothed time. */
        minRatio: numberIn(AT.minRatio).default(ATD.minRatio),
        /** Answers of a host (per phase) before its learned timeout is in force. */
        minSamples: numberIn(AT.minSamples).default(ATD.minSamples),
      })
      .prefault({}),
    /**
     * Hedged requests ("The Tail at Scale"): a GET or HEAD that waited delayRatio x its host's
     * p95 time to headers is sent a second time, the first answer wins. Each is a request more.
     */
    hedge: z
      .strictObject({
        enabled: z.boolean().default(hedgeDefaults.enabled),
        delayRatio: numberIn(HEDGE_BOUNDS.delayRatio).default(hedgeDefaults.delayRatio),
        /** Hedges are at most this percentage of the requests. */
        maxPercent: numberIn(HEDGE_BOUNDS.maxPercent).default(hedgeDefaults.maxPercent),
      })
      .prefault({}),
    /** The Chromium pool of jobs with render.kind browser (docs/browser.md). */
    browser: browserSchema,
  })
  .prefault({});
