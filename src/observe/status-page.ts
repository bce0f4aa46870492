import type { Express } from 'express';
import type { Daemon } from '../daemon/daemon.js';

/** The live status page at / (for people without Grafana). */
export function mountStatusPage(app: Express, _daemon: Daemon): void {
  app.get('/', (_req, res) => {
    res.type('text/plain').send('crawld: see /api/stats and /metrics\n');
  });
}
