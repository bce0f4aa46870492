/**
 * A crawl through a proxy pool whose first proxy is down: its tasks fail with proxy_error and
 * are retried through the live proxy, every page lands, the target host's breaker never opens,
 * and the metrics count by proxy index.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/config.js';
import { createDaemon, type Daemon } from '../../src/daemon/daemon.js';
import { type DemoSite, startDemoSite } from '../../src/demo/site.js';
import { createLogger } from '../../src/observe/logger.js';
import { tempDir } from '../helpers/cli.js';
import { type ForwardProxy, startForwardProxy } from '../helpers/forward-proxy.js';
import { metricSum } from '../helpers/hostile-server.js';
import { isPageRequest } from '../helpers/probe.js';

describe('crawl through a proxy pool', () => {
  let site: DemoSite | undefined;
  let live: ForwardProxy | undefined;
  let daemon: Daemon | undefined;
  afterEach(async () => {
    await daemon?.stop();
    await site?.close();
    await live?.close();
  });

  it('retries around a dead proxy without opening the target host breaker', async () => {
    site = await startDemoSite({ pages: 30 });
    const dead = await startForwardProxy();
    const deadUrl = dead.url();
    await dead.close();
    live = await startForwardProxy();
    const config = validateConfig({
      dataDir: tempDir(),
      frontier: { kind: 'memory' },
      fetch: { allowAddresses: [`127.0.0.1:${site.port}`] },
      politeness: { minDelayMs: 0 },
      retry: { baseDelayMs: 10, maxDelayMs: 50 },
      jobs: [{ id: 'p', seeds: [`${site.url}/`], robots: false, proxy: [deadUrl, live.url()] }],
    });
    const d = await createDaemon(config, {
      once: true,
      logger: createLogger({ level: 'error', instanceId: 't', silent: true }),
    });
    daemon = d;
    const first = await d.metrics.registry.metrics();
    // Both proxies' series exist from the first scrape.
    for (const proxy of ['0', '1'])
      for (const result of ['ok', 'proxy_error', 'proxy_auth'])
        expect(first).toMatch(
          new RegExp(`crawld_proxy_requests_total\\{proxy="${proxy}",result="${result}"\\} \\d+`),
        );
    const retries: string[] = [];
    const breakers = new Set<string>();
    d.events.on('retry', (e) => {
      retries.push(e.reason);
      for (const h of d.control.hostSnapshots()) breakers.add(h.breaker);
    });
    await d.run();
    const text = await d.metrics.registry.metrics();
    expect(metricSum(text, 'crawld_pages_total', { result: 'ok' })).toBe(30);
    expect(retries.length).toBeGreaterThan(0);
    expect(new Set(retries)).toEqual(new Set(['proxy_error']));
    expect(metricSum(text, 'crawld_proxy_requests_total', { proxy: '0', result: 'proxy_error' })).toBe(
      retries.length,
    );
    // The 30 pages and the host's soft-404 probe (docs/traps.md), all through the live proxy.
    expect(metricSum(text, 'crawld_proxy_requests_total', { proxy: '1', result: 'ok' })).toBe(31);
    expect(live.log.filter((e) => isPageRequest(e.path ?? ''))).toHaveLength(30);
    expect(site.stats().requests).toBe(31);
    // The target never looked down: its breaker was closed at every proxy failure and at the end.
    expect([...breakers]).toEqual(['closed']);
    expect(metricSum(text, 'crawld_breaker_state')).toBe(0);
  });
});
