import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HttpServerHandle {
  readonly url: string;
  readonly port: number;
  /** Starts answering with `handler`; until then every request gets 503 "starting". */
  serve(handler: RequestListener): void;
  close(): Promise<void>;
}

/**
 * Binds the daemon's HTTP port; binds 127.0.0.1 unless told otherwise. The handler may come
 * later: the port is taken (and a port in use fails) before the crawl starts, while express
 * and the admin API, ~0.1 s of module loading, load after the first requests are on the wire.
 */
export function listen(
  handler: RequestListener | undefined,
  host: string,
  port: number,
): Promise<HttpServerHandle> {
  let serving = handler;
  const server = createServer((req, res) => {
    if (serving) return serving(req, res);
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
    res.end('{"starting":true}\n');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const addr = server.address() as AddressInfo;
      const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
      resolve({
        url: `http://${shownHost}:${addr.port}`,
        port: addr.port,
        serve: (h) => {
          serving = h;
        },
        close: () =>
          new Promise<void>((res) => {
            server.close(() => res());
            server.closeAllConnections();
          }),
      });
    });
  });
}
