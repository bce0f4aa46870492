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
    /** As Scrapy's METAREFRESH_MAXDELAY; 0 follows only immediate refreshes. */
    maxRefreshDelaySeconds: numberIn(B.maxRefreshDelaySeconds).default(D.maxRefreshDelaySeconds),
    /** Unset: concurrency.maxPerHost, so requests never queue in the pool. */
    connectionsPerHost: numberIn(B.connectionsPerHost).optional(),
    acceptContentTypes: z
      .array(z.string().min(1))
      .default(['text/html', 'application/xhtml+xml', 'application/json', 'text/plain']),
    allowPrivateNetworks: z.boolean().default(false),
    allowAddresses: z.array(z.string().min(1)).default([]),
    /** As curl's --resolve; the SSRF guard still checks the address. @default {} */
    resolve: z
      .record(
        z.string().regex(/^[a-z0-9.-]+$/i, { message: 'must be a hostname' }),
        z.union([z.ipv4(), z.ipv6()]),
      )
      .default({}),
    tls: z
      .strictObject({
        ca: z
          .string()
          .min(1)
          .refine(isPemFile, { message: 'must be a readable PEM file of certificates' })
          .optional(),
      })
      .prefault({}),
    /** Unset: HTTPS_PROXY / HTTP_PROXY / NO_PROXY; false: direct, whatever the environment. */
    proxy: proxyChoice.optional(),
    /** The timeouts above are the learned ones' ceilings (docs/control-plane.md). */
    adaptiveTimeout: z
      .strictObject({
        enabled: z.boolean().default(ATD.enabled),
        floorMs: numberIn(AT.floorMs).default(ATD.floorMs),
        /** RFC 6298's K. */
        factor: numberIn(AT.factor).default(ATD.factor),
        minRatio: numberIn(AT.minRatio).default(ATD.minRatio),
        minSamples: numberIn(AT.minSamples).default(ATD.minSamples),
      })
      .prefault({}),
    /** Hedged requests ("The Tail at Scale"): each is a request more to the host. */
    hedge: z
      .strictObject({
        enabled: z.boolean().default(hedgeDefaults.enabled),
        delayRatio: numberIn(HEDGE_BOUNDS.delayRatio).default(hedgeDefaults.delayRatio),
        maxPercent: numberIn(HEDGE_BOUNDS.maxPercent).default(hedgeDefaults.maxPercent),
      })
      .prefault({}),
    browser: browserSchema,
  })
  .prefault({});
