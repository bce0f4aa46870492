import { Counter, Histogram, type Registry } from 'prom-client';
import type { CrawlEmitter } from '../core/events.js';
import * as known from './label-values.js';
import { type HostSeries, zero } from './series.js';

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const SIZE_BUCKETS = [1024, 4096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304, 16_777_216];
const PROXY_RESULTS = ['ok', 'proxy_error', 'proxy_auth'] as const;

function statusClass(status: number): string {
  return status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'other';
}

/** The family's metrics, by the names the wiring below uses. */
function requestMetrics(registry: Registry, proxies: (() => number) | undefined) {
  const r = [registry];
  return {
    requests: new Counter({
      name: 'crawld_requests_total',
      help: 'HTTP requests that got a response, by host and status class.',
      labelNames: ['host', 'status_class'],
      registers: r,
    }),
    fetchErrors: new Counter({
      name: 'crawld_fetch_errors_total',
      help: 'Requests that got no usable response, by host and reason (timeout, connection, body_too_large, ...).',
      labelNames: ['host', 'reason'],
      registers: r,
    }),
    duration: new Histogram({
      name: 'crawld_request_duration_seconds',
      help: 'Whole request duration, redirects and body included.',
      labelNames: ['host'],
      buckets: DURATION_BUCKETS,
      registers: r,
    }),
    jobDuration: new Histogram({
      name: 'crawld_job_request_duration_seconds',
      help: 'Whole request duration by crawl job (the config job id).',
      labelNames: ['crawl_job'],
      buckets: DURATION_BUCKETS,
      registers: r,
    }),
    ttfb: new Histogram({
      name: 'crawld_request_ttfb_seconds',
      help: 'Time to response headers of the final hop.',
      buckets: DURATION_BUCKETS,
      registers: r,
    }),
    size: new Histogram({
      name: 'crawld_response_size_bytes',
      help: 'Decoded response body size.',
      buckets: SIZE_BUCKETS,
      registers: r,
    }),
    downloaded: new Counter({
      name: 'crawld_downloaded_bytes_total',
      help: 'Bytes received on the wire (compressed).',
      labelNames: ['host'],
      registers: r,
    }),
    proxyRequests: new Counter({
      name: 'crawld_proxy_requests_total',
      help: 'Requests sent through each proxy (by index in the config), by result: ok, proxy_error, proxy_auth.',
      labelNames: ['proxy', 'result'],
      registers: r,
      collect() {
        // Every configured proxy's series from the first scrape.
        for (let i = 0; i < (proxies?.() ?? 0); i++)
          zero(this, 'result', PROXY_RESULTS, { proxy: String(i) });
      },
    }),
  };
}

/**
 * The requests' metrics: responses by host and status class, fetch errors, durations, sizes,
 * bytes on the wire and proxies. Returns what starts a job's series.
 */
export function registerRequestMetrics(
  events: CrawlEmitter,
  registry: Registry,
  hosts: HostSeries,
  proxies: (() => number) | undefined,
): (jobId: string) => void {
  const m = requestMetrics(registry, proxies);
  hosts.onLabel((host) => {
    zero(m.requests, 'status_class', known.STATUS_CLASSES, { host });
    zero(m.fetchErrors, 'reason', known.FETCH_ERROR_REASONS, { host });
    zero(m.downloaded, 'host', [host]);
    m.duration.zero({ host });
  });
  m.ttfb.zero({});
  m.size.zero({});

  events.on('fetched', (e) => {
    const host = hosts.observe(e.host);
    m.jobDuration.observe({ crawl_job: e.jobId }, e.durationMs / 1000);
    m.requests.inc({ host, status_class: statusClass(e.status) });
    m.duration.observe({ host }, e.durationMs / 1000);
    m.ttfb.observe(e.ttfbMs / 1000);
    m.size.observe(e.bytes);
    m.downloaded.inc({ host }, e.wireBytes);
  });
  events.on('fetchError', (e) => m.fetchErrors.inc({ host: hosts.observe(e.host), reason: e.reason }));
  events.on('proxy', (e) => m.proxyRequests.inc({ proxy: String(e.proxy), result: e.result }));

  return (jobId) => m.jobDuration.zero({ crawl_job: jobId });
}
