/**
 * An exchange tap that keeps its exchange off the event loop (the WARC sink on more than one
 * core) returns a promise: the hop's end waits for it, so the next redirect hop is not asked for
 * and the fetch does not resolve (and its page is not acked) before the exchange is kept.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { HttpExchange } from '../../src/ports/fetcher.js';
import { closeAll, html, makeFetcher, startServer } from '../helpers/fetch.js';
import { waitFor } from '../helpers/wait.js';

afterEach(closeAll);

describe('UndiciFetcher: an exchange tap that returns a promise', () => {
  it('holds each hop until its promise settles', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/a') {
        res.writeHead(302, { location: '/b' });
        return res.end();
      }
      html('<p>b</p>')(req, res);
    });
    const seen: string[] = [];
    const release: (() => void)[] = [];
    const tap = (ex: HttpExchange) => {
      seen.push(ex.url);
      return new Promise<void>((resolve) => release.push(resolve));
    };
    let settled = false;
    const fetching = makeFetcher({ tap }).fetch({ url: `${server.origin}/a` });
    void fetching.finally(() => {
      settled = true;
    });
    // A whole request to the same server answered meanwhile: the held hop had time to go on.
    const roundTrip = async () => (await fetch(`${server.origin}/ping`)).text();

    await waitFor(() => seen.length === 1, 'the first hop tapped');
    await roundTrip();
    expect(server.paths).toEqual(['/a', '/ping']);
    expect(settled).toBe(false);

    release[0]!();
    await waitFor(() => seen.length === 2, 'the redirect target tapped');
    await roundTrip();
    expect(settled).toBe(false);

    release[1]!();
    const res = await fetching;
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('<p>b</p>');
    expect(seen).toEqual([`${server.origin}/a`, `${server.origin}/b`]);
  });
});
