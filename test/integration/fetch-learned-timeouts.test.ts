import type { LookupFunction } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BodyTimeoutError, HeadersTimeoutError, HungRequestError } from '../../src/core/errors.js';
import { HostTimeouts } from '../../src/core/host-timeout.js';
import { closeAll, makeFetcher, rejectionOf, startServer } from '../helpers/fetch.js';

afterEach(closeAll);

/**
 * The learned timeouts through the real fetcher against a real server: a host that answered
 * its pages promptly has learned timeouts, and a request it then never answers is given up at
 * them (HungRequestError, naming the phase) rather than at the configured timeouts, which are
 * 10 s here: a test that got a HeadersTimeoutError or BodyTimeoutError instead would say so.
 * No duration is asserted.
 */
const CONFIGURED = {
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 10_000,
  totalTimeoutMs: 25_000,
};

/** Answers /ok at once; /hang never; /stall sends its headers and a first chunk, then nothing. */
async function site() {
  return startServer((req, res) => {
    if (req.url === '/hang') return;
    res.writeHead(200, { 'content-type': 'text/html', 'content-length': '1000' });
    if (req.url === '/stall') res.write('<p>first');
    else res.end(`<p>${'x'.repeat(997)}`);
  });
}

async function learn(fetch: (url: string) => Promise<unknown>, origin: string, n = 10): Promise<void> {
  for (let i = 0; i < n; i++) await fetch(`${origin}/ok`);
}

describe('UndiciFetcher: learned timeouts', () => {
  it('gives up a request its host never answers at the learned headers timeout, and backs it off', async () => {
    const server = await site();
    const timeouts = new HostTimeouts();
    const fetcher = makeFetcher({ ...CONFIGURED, timeouts });
    await learn((url) => fetcher.fetch({ url }), server.origin);
    const host = new URL(server.origin).host;
    // Learned: under the configured 10 s (250 ms, the floor, on a quiet machine; more where
    // the answers took longer, which a loaded machine decides, not the test).
    expect(timeouts.timeoutOf(host, 'headers', CONFIGURED.headersTimeoutMs)).toBeLessThan(
      CONFIGURED.headersTimeoutMs,
    );
    const err = await rejectionOf(fetcher.fetch({ url: `${server.origin}/hang` }));
    expect(err).toBeInstanceOf(HungRequestError);
    expect((err as HungRequestError).phase).toBe('headers');
    expect(err.message).toContain(`${server.origin}/hang`);
    expect(timeouts.estimate(host, 'headers')!.level).toBe(1);
    // The next answer in time ends the back-off.
    await fetcher.fetch({ url: `${server.origin}/ok` });
    expect(timeouts.estimate(host, 'headers')!.level).toBe(0);
  });

  it('gives up a body that goes silent at the learned body timeout', async () => {
    const server = await site();
    const timeouts = new HostTimeouts();
    const fetcher = makeFetcher({ ...CONFIGURED, timeouts });
    await learn((url) => fetcher.fetch({ url }), server.origin);
    const err = await rejectionOf(fetcher.fetch({ url: `${server.origin}/stall` }));
    expect(err).toBeInstanceOf(HungRequestError);
    expect((err as HungRequestError).phase).toBe('body');
  });

  it('gives up a connection its host never completes at the learned connect timeout', async () => {
    const timeouts = new HostTimeouts();
    // As if five connections to it had taken a few ms each.
    for (let i = 0; i < 5; i++) timeouts.sample('stalled.test', 'connect', 3);
    // A lookup that never answers stalls the connect without sending a packet anywhere.
    const hang: LookupFunction = () => {};
    const fetcher = makeFetcher({ ...CONFIGURED, lookup: hang, timeouts });
    const err = await rejectionOf(fetcher.fetch({ url: 'http://stalled.test/' }));
    expect(err).toBeInstanceOf(HungRequestError);
    expect((err as HungRequestError).phase).toBe('connect');
    expect(timeouts.estimate('stalled.test', 'connect')!.level).toBe(1);
  });

  it('holds a host it has not learned yet to the configured timeouts', async () => {
    const server = await site();
    const timeouts = new HostTimeouts();
    const fetcher = makeFetcher({ ...CONFIGURED, headersTimeoutMs: 300, bodyTimeoutMs: 300, timeouts });
    expect(await rejectionOf(fetcher.fetch({ url: `${server.origin}/hang` }))).toBeInstanceOf(
      HeadersTimeoutError,
    );
    expect(await rejectionOf(fetcher.fetch({ url: `${server.origin}/stall` }))).toBeInstanceOf(
      BodyTimeoutError,
    );
  });

  it('learns nothing and cuts nothing short when off', async () => {
    const server = await site();
    const timeouts = new HostTimeouts({ enabled: false });
    const fetcher = makeFetcher({ ...CONFIGURED, headersTimeoutMs: 1_000, timeouts });
    await learn((url) => fetcher.fetch({ url }), server.origin);
    expect(await rejectionOf(fetcher.fetch({ url: `${server.origin}/hang` }))).toBeInstanceOf(
      HeadersTimeoutError,
    );
    expect(timeouts.size).toBe(0);
  });
});
