import type { ErrorRequestHandler, Express } from 'express';
import type { Clock } from '../core/clock.js';
import { CrawldError } from '../core/errors.js';
import type { Daemon } from '../daemon/daemon-types.js';
import { createApp } from '../observe/express-app.js';
import type { Logger } from '../observe/logger.js';
import { collectStats } from '../observe/status-data.js';
import { mountStatusPage } from '../observe/status-page.js';
import { mountAdminApi } from './api.js';
import type { AdminTokenSource } from './auth.js';

export interface RouteOptions {
  readonly clock: Clock;
  readonly adminToken: AdminTokenSource;
}

export function mountRoutes(app: Express, daemon: Daemon, options: RouteOptions): void {
  // Liveness: answering at all is the signal, so nothing here may depend on the crawl.
  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  app.get('/readyz', (_req, res) => {
    const ready = daemon.ready();
    res.status(ready ? 200 : 503).json({ ready, state: daemon.scheduler.state });
  });
  app.get('/metrics', async (_req, res) => {
    const body = await daemon.metrics.registry.metrics();
    res.type(daemon.metrics.registry.contentType).send(body);
  });
  app.get('/api/stats', async (_req, res) => {
    res.json(await collectStats(daemon, options.clock.now()));
  });
  mountAdminApi(app, daemon, {
    adminToken: options.adminToken,
    maxBodyBytes: daemon.config.http.maxBodyBytes,
  });
}

/** A failing handler's stack goes to the log, which the operator controls, not to the client. */
export function mountFallbacks(app: Express, logger: Logger): void {
  app.use((_req, res) => {
    res.status(404).json({ error: 'not found' });
  });
  const onError: ErrorRequestHandler = (err: unknown, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const unavailable = err instanceof CrawldError && err.retryable;
    logger.error('http request failed', {
      method: req.method,
      path: req.path,
      error: err instanceof Error ? err.message : String(err),
    });
    if (unavailable) {
      // The frontier store is down (Redis restarting): the client may retry; nothing was lost.
      res.status(503).set('retry-after', '5').json({ error: 'frontier unavailable, retry later' });
      return;
    }
    res.status(500).json({ error: 'internal error' });
  };
  app.use(onError);
}

/** Shared by run-daemon and the tests so both serve the same routes. */
export function createDaemonApp(daemon: Daemon, options: RouteOptions): Express {
  const app = createApp();
  mountRoutes(app, daemon, options);
  mountStatusPage(app, daemon);
  mountFallbacks(app, daemon.logger);
  return app;
}
