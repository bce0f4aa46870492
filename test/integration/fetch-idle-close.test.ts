import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { closeAll, makeFetcher } from '../helpers/fetch.js';
import { waitFor } from '../helpers/wait.js';

afterEach(closeAll);

// The agent keeps a pool per host until the host's last connection closes, so the idle time
// it allows a connection bounds the pools of a crawl over many hosts: whatever
// the server's Keep-Alive hint, at most 10 s.
it('closes an idle keep-alive connection after 10 s although the server allows 120 s', async () => {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>hello</p>');
  });
  server.keepAliveTimeout = 120_000; // sent as Keep-Alive: timeout=120
  const open = new Set<Socket>();
  server.on('connection', (s) => {
    open.add(s);
    s.on('close', () => open.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as AddressInfo;
    const res = await makeFetcher().fetch({ url: `http://127.0.0.1:${port}/` });
    expect(res.headers['keep-alive']).toBe('timeout=120');
    const idleFrom = performance.now();
    expect(open.size).toBe(1);
    // Not at 120 s: waitFor's deadline (40 s, under the test's 60 s) would pass first.
    await waitFor(() => open.size === 0, { what: 'the idle connection closed', deadlineMs: 40_000 });
    const idleMs = performance.now() - idleFrom;
    // Not at once: kept idle until the client's cap (10 s, less undici's 1 s margin).
    expect(idleMs).toBeGreaterThan(7_000);
  } finally {
    for (const s of open) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  }
}, 60_000);
