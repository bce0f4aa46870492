/**
 * The port is bound at start-up, before the crawl, so a port in use fails before any work; the
 * app is mounted later (serve).
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import type { CrawldConfig } from '../config/config.js';
import type { Clock } from '../core/clock.js';
import { type HttpServerHandle, listen } from '../observe/http-server.js';
import type { Logger } from '../observe/logger.js';
import type { Daemon } from './daemon-types.js';

export interface DaemonHttp {
  readonly url: string;
  /**
   * Mounts the app once the first request is on the wire (or `crawlEnded` settles), so that
   * loading Express overlaps the network wait; until then the port answers 503 "starting".
   */
  serve(daemon: Daemon, crawlEnded: Promise<unknown>): Promise<void>;
  close(): Promise<void>;
}

/** How long serve() waits for the first request before loading anyway (an idle daemon). */
const FIRST_REQUEST_WAIT_MS = 250;

/** Undefined when http.port is null. */
export async function openHttp(
  config: CrawldConfig,
  deps: { readonly clock: Clock; readonly logger: Logger; readonly adminToken: () => string | undefined },
): Promise<DaemonHttp | undefined> {
  if (config.http.port === null) return undefined;
  const handle: HttpServerHandle = await listen(undefined, config.http.host, config.http.port);
  return {
    url: handle.url,
    async serve(daemon, crawlEnded) {
      await Promise.race([firstRequestSent(FIRST_REQUEST_WAIT_MS), crawlEnded.catch(() => {})]);
      const { createDaemonApp } = await import('../admin/routes.js');
      handle.serve(createDaemonApp(daemon, { clock: deps.clock, adminToken: deps.adminToken }));
      deps.logger.info('http server listening', { url: handle.url });
    },
    close: () => handle.close(),
  };
}

/** Resolves when undici writes this process's first request headers to a socket, or after capMs. */
function firstRequestSent(capMs: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      diagnosticsChannel.unsubscribe('undici:client:sendHeaders', done);
      resolve();
    };
    const timer = setTimeout(done, capMs);
    diagnosticsChannel.subscribe('undici:client:sendHeaders', done);
  });
}
