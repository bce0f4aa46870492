import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/config.js';
import { createDaemon, type Daemon } from '../../src/daemon/daemon.js';
import { type DemoSite, startDemoSite } from '../../src/demo/site.js';
import { createLogger } from '../../src/observe/logger.js';
import { tempDir } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

describe('recrawl schedule and change records', () => {
  let site: DemoSite | undefined;
  let daemon: Daemon | undefined;
  afterEach(async () => {
    await daemon?.stop();
    await site?.close();
  });

  it('recrawls on the interval and records old and new values when a price changes', async () => {
    site = await startDemoSite({ pages: 10 });
    const dir = tempDir();
    const config = validateConfig({
      dataDir: dir,
      fetch: { allowAddresses: [`127.0.0.1:${site.port}`] },
      jobs: [
        {
          id: 'prices',
          seeds: [`${site.url}/`],
          recrawlIntervalMs: 500,
          extract: {
            fields: { title: { selector: 'h1.title' }, price: { selector: 'span.price', type: 'number' } },
          },
        },
      ],
    });
    const logger = createLogger({ level: 'error', instanceId: 't', silent: true });
    daemon = await createDaemon(config, { once: false, logger });
    const seen = { pageDone: 0, change: 0 };
    daemon.events.on('pageDone', () => seen.pageDone++);
    daemon.events.on('change', () => seen.change++);
    void daemon.run();
    await waitFor(() => seen.pageDone >= 10, 'the first pass: 10 pages');
    // Same content on a recrawl: no change record.
    await waitFor(() => seen.pageDone >= 20, 'a recrawl of the 10 pages');
    expect(readFileSync(join(dir, 'changes.jsonl'), 'utf8')).toBe('');

    site.setPriceEpoch(1);
    await waitFor(() => seen.change >= 10, 'a change of each page');
    const changes = readFileSync(join(dir, 'changes.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            url: string;
            kind: string;
            generation: number;
            changes: Record<string, { old: unknown; new: unknown }>;
          },
      );
    const urls = new Set(changes.map((c) => c.url));
    expect(urls.size).toBe(10);
    for (const c of changes) {
      expect(c.kind).toBe('change');
      expect(c.generation).toBeGreaterThan(0);
      expect(Object.keys(c.changes)).toEqual(['price']);
      expect(typeof c.changes.price!.old).toBe('number');
      expect(c.changes.price!.new).not.toEqual(c.changes.price!.old);
    }
    const results = readFileSync(join(dir, 'results.jsonl'), 'utf8').trim().split('\n');
    expect(results.length).toBeGreaterThanOrEqual(30);
  }, 30_000);
});
