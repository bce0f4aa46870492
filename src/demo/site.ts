import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DemoSiteHandler } from './site-handler.js';
import { DEFAULT_DEMO_SITE, type DemoSite, type DemoSiteOptions } from './site-options.js';

export { pageEpoch, pageLinks, pagePath, pagePrice } from './shop-content.js';
export {
  DEFAULT_DEMO_SITE,
  type DemoSite,
  type DemoSiteOptions,
  type DemoSiteStats,
} from './site-options.js';

export async function startDemoSite(options: Partial<DemoSiteOptions> = {}): Promise<DemoSite> {
  const o: DemoSiteOptions = { ...DEFAULT_DEMO_SITE, ...stripUndefined(options) };
  if (!Number.isInteger(o.pages) || o.pages < 1) throw new RangeError('pages must be a positive integer');
  if (o.capacity !== undefined && !(o.capacity > 0)) throw new RangeError('capacity must be > 0');
  if (o.changeRate !== undefined && !(o.changeRate >= 0 && o.changeRate <= 1))
    throw new RangeError('changeRate must be within 0..1');
  const handler = new DemoSiteHandler(o);
  const server = createServer((req, res) => handler.handle(req, res));
  // Long keep-alive and no per-socket request cap, so clients reuse connections like a real CDN.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.maxRequestsPerSocket = 0;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  handler.port = port;
  const hostForUrl = o.host.includes(':') ? `[${o.host}]` : o.host;

  return {
    url: `http://${hostForUrl}:${port}`,
    port,
    stats: () => handler.stats(),
    setPriceEpoch(epoch: number) {
      handler.setPriceEpoch(epoch);
    },
    setJs(on: boolean) {
      handler.setJs(on);
    },
    close() {
      handler.cancelPending();
      return new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

/** So that `{ capacity: undefined }` from a CLI parser means "default", not "override with undefined". */
function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
