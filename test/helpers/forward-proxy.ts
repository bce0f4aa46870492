/**
 * A small forward proxy on 127.0.0.1 for the proxy tests: absolute-form HTTP requests are
 * forwarded, CONNECT opens a tunnel. It logs every request (kind, target, Proxy-Authorization)
 * so tests can assert what went through it, and can demand credentials (407) or refuse
 * CONNECT with a status.
 */
import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';

export interface ProxyLogEntry {
  readonly kind: 'http' | 'connect';
  /** host:port of the target. */
  readonly target: string;
  /** The path and query of an absolute-form request line, as sent (an empty query's `?` kept). */
  readonly path?: string;
  readonly auth: string | undefined;
}

export interface ForwardProxy {
  readonly port: number;
  /** http://127.0.0.1:PORT, or with credentials when given. */
  url(credentials?: string): string;
  readonly log: ProxyLogEntry[];
  close(): Promise<void>;
}

export interface ForwardProxyOptions {
  /** The Proxy-Authorization value required; other requests get 407. */
  readonly requireAuth?: string;
  /** Answer every CONNECT with this status instead of tunnelling. */
  readonly connectStatus?: number;
  /** Maps a target host name to the address dialled (test names resolve to 127.0.0.1). */
  readonly resolve?: (host: string) => string;
}

export async function startForwardProxy(o: ForwardProxyOptions = {}): Promise<ForwardProxy> {
  const log: ProxyLogEntry[] = [];
  const sockets = new Set<Socket>();
  const dial = (host: string) => o.resolve?.(host) ?? host;
  const authorised = (auth: string | undefined) => o.requireAuth === undefined || auth === o.requireAuth;
  const server = http.createServer((req, res) => {
    const auth = req.headers['proxy-authorization'];
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute-form required');
      return;
    }
    // The request line's own path and query, not pathname + search (which drops an empty query's `?`).
    const raw = req.url ?? '';
    const at = raw.indexOf('/', raw.indexOf('//') + 2);
    const path = at < 0 ? '/' : raw.slice(at);
    log.push({ kind: 'http', target: target.host, path, auth });
    if (!authorised(auth)) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"' }).end();
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = http.request(
      {
        host: dial(target.hostname),
        port: Number(target.port) || 80,
        method: req.method,
        path,
        headers,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  server.on('connect', (req: http.IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    const auth = req.headers['proxy-authorization'];
    const target = req.url ?? '';
    log.push({ kind: 'connect', target, auth });
    if (!authorised(auth)) {
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\n\r\n',
      );
      return;
    }
    if (o.connectStatus !== undefined) {
      client.end(`HTTP/1.1 ${o.connectStatus} Refused\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    const [host = '', port = '443'] = target.split(/:(?=\d+$)/);
    const upstream = net.connect(Number(port), dial(host), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    log,
    url: (credentials) => `http://${credentials ? `${credentials}@` : ''}127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
