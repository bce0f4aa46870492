import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/config.js';
import { createDaemon, type Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/observe/logger.js';
import { tempDir } from '../helpers/cli.js';

// metrics.enabled: false (for benchmarks measuring the cost of metrics) must leave crawl
// metrics untouched by crawl events, and the default must record them.

const fetched = {
  jobId: 'j',
  host: 'shop.test',
  url: 'http://shop.test/',
  status: 200,
  durationMs: 12,
  ttfbMs: 5,
  wireBytes: 100,
  bytes: 100,
};

describe('metrics.enabled', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0)) await c();
  });

  async function daemonWith(enabled: boolean | undefined): Promise<Daemon> {
    const dataDir = tempDir();
    const config = validateConfig({
      dataDir,
      frontier: { kind: 'memory' },
      ...(enabled === undefined ? {} : { metrics: { enabled } }),
    });
    const daemon = await createDaemon(config, {
      once: true,
      logger: createLogger({ level: 'error', instanceId: 'test', silent: true }),
    });
    cleanup.push(async () => {
      await daemon.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });
    return daemon;
  }

  const requests = async (d: Daemon) =>
    (await d.metrics.registry.getSingleMetric('crawld_requests_total')?.get())?.values.reduce(
      (sum, v) => sum + v.value,
      0,
    );

  it('defaults to on: a fetched event counts a request', async () => {
    const d = await daemonWith(undefined);
    expect(d.config.metrics.enabled).toBe(true);
    d.events.emit('fetched', fetched);
    expect(await requests(d)).toBe(1);
  });

  it('off: events update no crawl metric, process metrics are still served', async () => {
    const d = await daemonWith(false);
    d.events.emit('fetched', fetched);
    expect(await requests(d)).toBe(0);
    expect(await d.metrics.registry.metrics()).toContain('process_cpu_user_seconds_total');
  });
});
