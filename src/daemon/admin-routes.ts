import type { Express } from 'express';
import type { Clock } from '../core/clock.js';
import type { Daemon } from './daemon.js';
import { collectStats } from './stats.js';

/** Health, readiness and read-only stats. Mutating routes (issue: admin API) mount here too. */
export function mountRoutes(app: Express, daemon: Daemon, clock: Clock): void {
  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  app.get('/readyz', (_req, res) => {
    const ready = daemon.ready();
    res.status(ready ? 200 : 503).json({ ready, state: daemon.scheduler.state });
  });
  app.get('/metrics', async (_req, res, next) => {
    try {
      const body = await daemon.metrics.registry.metrics();
      res.type(daemon.metrics.registry.contentType).send(body);
    } catch (err) {
      next(err);
    }
  });
  app.get('/api/stats', async (_req, res, next) => {
    try {
      res.json(await collectStats(daemon, clock.now()));
    } catch (err) {
      next(err);
    }
  });
}
