import { describe, expect, it } from 'vitest';
import { closeAfterEach } from '../helpers/cleanup.js';
import { html, page, startDaemon, startServer } from '../helpers/control.js';

/**
 * A 'throttled' listener that throws (a plugin, a metrics bug) inside the scheduler's pump:
 * before safe emit the throw reached the pump's catch, was taken for a frontier failure and
 * ended the crawl loop. Now it is logged, counted in crawld_internal_errors_total, and the
 * crawl finishes.
 */
describe('listener errors', () => {
  const track = closeAfterEach();

  it('a throwing listener is an internal error, not a frontier failure', async () => {
    const paths = ['/', '/a', '/b', '/c'];
    const server = await startServer((path) => html(page(path, path === '/' ? paths.slice(1) : []))).then(
      track,
    );
    const crawler = await startDaemon(
      { politeness: { minDelayMs: 100 }, jobs: [{ id: 'j', seeds: [`${server.url}/`], robots: false }] },
      { once: true },
    ).then(track);
    let thrown = 0;
    crawler.daemon.events.on('throttled', () => {
      thrown++;
      throw new Error('listener bug');
    });
    await crawler.done;
    expect(crawler.events.pageDone.length).toBe(paths.length);
    expect(thrown).toBeGreaterThan(0);
    const metrics = await crawler.daemon.metrics.registry.metrics();
    const counted = Number(/^crawld_internal_errors_total (\d+)/m.exec(metrics)?.[1]);
    expect(counted).toBe(thrown);
    const logged = crawler.logs.filter((l) => l.message === 'event listener failed');
    expect(logged.length).toBe(thrown);
    expect(logged[0]).toMatchObject({ event: 'throttled', error: 'Error: listener bug' });
  });
});
