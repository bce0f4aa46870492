import type { Express, Response } from 'express';
import { systemClock } from '../core/clock.js';
import type { StatusSource } from '../ports/status-source.js';
import { collectStatus, RateSampler } from './status-data.js';
import { STATUS_CSS, STATUS_HTML } from './status-page/markup.js';
import { STATUS_JS } from './status-page/script.js';

/**
 * Only our own origin, no inline script or style: host names on the page come from the
 * network, so even a slip in escaping must not be able to run code. frame-ancestors keeps
 * the page out of other sites' frames (clickjacking of nothing, but it costs nothing).
 */
export const STATUS_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function secure(res: Response, type: string, cache: string): Response {
  return res.type(type).set({
    'Content-Security-Policy': STATUS_CSP,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': cache,
  });
}

/** The live status page for people without Grafana; rates are computed server-side. */
export function mountStatusPage(app: Express, daemon: StatusSource, clock = systemClock): void {
  const sampler = new RateSampler();
  app.get('/', (_req, res) => {
    secure(res, 'html', 'no-cache').send(STATUS_HTML);
  });
  app.get('/status.js', (_req, res) => {
    secure(res, 'text/javascript', 'no-cache').send(STATUS_JS);
  });
  app.get('/status.css', (_req, res) => {
    secure(res, 'text/css', 'no-cache').send(STATUS_CSS);
  });
  // Browsers ask for it anyway; a 204 keeps 404s out of the console and the access logs.
  app.get('/favicon.ico', (_req, res) => {
    secure(res, 'image/x-icon', 'max-age=86400').status(204).end();
  });
  app.get('/api/status', async (_req, res, next) => {
    try {
      const body = await collectStatus(daemon, sampler, clock.now());
      secure(res, 'json', 'no-store').json(body);
    } catch (err) {
      next(err);
    }
  });
}
