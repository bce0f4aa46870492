import { z } from 'zod';
import { DEFAULT_MAX_REFRESH_DELAY_SECONDS } from '../../core/refresh.js';
import { isPemFile } from '../predicates.js';
import { nonNegativeInt, numberIn, positiveInt, positiveMs } from '../units.js';
import { proxyChoice } from './common.js';
import { browserSchema } from './render.js';

/** fetch: how pages are requested (timeouts, size caps, redirects, addresses, TLS, proxies). */
export const fetchSchema = z
  .strictObject({
    userAgent: z.string().min(1).default('crawld/0.1'),
    connectTimeoutMs: positiveMs.default(10_000),
    headersTimeoutMs: positiveMs.default(15_000),
    bodyTimeoutMs: positiveMs.default(15_000),
    totalTimeoutMs: positiveMs.default(60_000),
    maxBodyBytes: positiveInt.default(10 * 1024 * 1024),
    maxDecodedBytes: positiveInt.default(20 * 1024 * 1024),
    maxRedirects: nonNegativeInt.default(10),
    /**
     * Meta refresh and Refresh headers of 2xx pages with at most this delay are followed as
     * redirects (Scrapy's METAREFRESH_MAXDELAY); 0 follows only immediate ones.
     */
    maxRefreshDelaySeconds: numberIn({ min: 0 }).default(DEFAULT_MAX_REFRESH_DELAY_SECONDS),
    /** Keep-alive pool per origin. Unset: concurrency.maxPerHost, so requests never queue in it. */
    connectionsPerHost: positiveInt.optional(),
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
    /** The Chromium pool of jobs with render.kind browser (docs/browser.md). */
    browser: browserSchema,
  })
  .prefault({});
