/**
 * The admin API under /api. Reads are open like /api/stats (the server binds 127.0.0.1 unless
 * configured); every POST needs the bearer token.
 */
import express, { type RequestHandler } from 'express';
import { keyOptionsOf } from '../config/key-options.js';
import { isRedisKind } from '../config/predicates.js';
import { scopeHostsOf } from '../config/scope-hosts.js';
import type { Daemon } from '../daemon/daemon-types.js';
import { REDIS_PRIORITY_MAX, REDIS_PRIORITY_MIN } from '../ports/frontier.js';
import { type AdminTokenSource, requireAdminToken } from './auth.js';
import { deadLetterView, parseDlqQuery, parseEmpty, parseRedrive, parseSubmit } from './validate.js';

export interface AdminApiOptions {
  /** Undefined turns the mutating routes off (403). */
  readonly adminToken: AdminTokenSource;
  readonly maxBodyBytes: number;
}

/** A body-parser error carries its HTTP status and a stable `type`. */
interface BodyParserError {
  readonly type?: string;
  readonly status?: number;
}

const BODY_ERRORS: Readonly<Record<string, readonly [number, string]>> = {
  'entity.parse.failed': [400, 'malformed JSON'],
  'entity.too.large': [413, 'body too large'],
  'encoding.unsupported': [415, 'unsupported content encoding'],
  'charset.unsupported': [415, 'unsupported charset'],
};

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  // A bare POST commonly carries `Content-Length: 0`: no body, not a body of the wrong type.
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Errors are answered here, as JSON, rather than falling through to the generic 500 handler. */
function jsonBody(maxBodyBytes: number): RequestHandler {
  const parse = express.json({ limit: maxBodyBytes, type: 'application/json', strict: true });
  return (req, res, next) => {
    if (!hasBody(req.headers)) {
      req.body = undefined;
      next();
      return;
    }
    if (!req.is('application/json')) {
      res.status(415).json({ error: 'unsupported content type: send application/json' });
      return;
    }
    parse(req, res, (err?: unknown) => {
      if (err === undefined) {
        next();
        return;
      }
      const e = err as BodyParserError;
      const known = e.type === undefined ? undefined : BODY_ERRORS[e.type];
      if (known) {
        res.status(known[0]).json({ error: known[1] });
      } else if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
        res.status(e.status).json({ error: 'bad request body' });
      } else {
        next(err);
      }
    });
  };
}

/** Draining, or the frontier store is unreachable: refuse at once rather than wait on retries. */
function unavailable(res: express.Response): void {
  res.status(503).set('retry-after', '5').json({ error: 'not ready: frontier unavailable or shutting down' });
}

function invalid(res: express.Response, issues: readonly string[]): void {
  res.status(400).json({ error: 'invalid request', issues });
}

export function mountAdminApi(app: express.Express, daemon: Daemon, options: AdminApiOptions): void {
  const mutating = [requireAdminToken(options.adminToken), jsonBody(options.maxBodyBytes)];

  app.get('/api/jobs', (_req, res) => {
    res.json({
      jobs: daemon.config.jobs.map((j) => ({
        id: j.id,
        seeds: j.seeds,
        scope: {
          // Without the hosts the seeds have redirected to since the start.
          hosts: scopeHostsOf(j),
          include: j.scope.include,
          exclude: j.scope.exclude,
          maxDepth: j.scope.maxDepth,
        },
        seedPriority: j.seedPriority,
        recrawlIntervalMs: j.recrawlIntervalMs ?? null,
      })),
    });
  });

  app.post('/api/urls', ...mutating, async (req, res) => {
    // Read per request, not at mount: a config reload may add jobs.
    const range = isRedisKind(daemon.config.frontier.kind)
      ? { min: REDIS_PRIORITY_MIN, max: REDIS_PRIORITY_MAX }
      : undefined;
    const jobs = daemon.config.jobs.map((j) => ({ ...j, normalise: keyOptionsOf(j) }));
    const parsed = parseSubmit(req.body, jobs, range);
    if (!parsed.ok) return invalid(res, parsed.issues);
    if (!daemon.ready()) return unavailable(res);
    const result = await daemon.submit(parsed.value);
    daemon.logger.info('admin: urls submitted', { ...result });
    res.status(202).json({ added: result.added, duplicates: result.duplicates, dropped: result.dropped });
  });

  for (const action of ['pause', 'resume'] as const) {
    const wanted = action === 'pause' ? 'paused' : 'running';
    app.post(`/api/${action}`, ...mutating, (req, res) => {
      const parsed = parseEmpty(req.body);
      if (!parsed.ok) return invalid(res, parsed.issues);
      const before = daemon.scheduler.state;
      daemon.scheduler[action]();
      const state = daemon.scheduler.state;
      // The scheduler ignores pause/resume outside running/paused (starting, draining,
      // stopped): say so instead of answering 200 for nothing.
      if (state !== wanted) {
        res.status(409).json({ error: `cannot ${action} while ${state}`, state });
        return;
      }
      if (before !== state) daemon.logger.info(`admin: crawl ${state}`);
      res.json({ state });
    });
  }

  app.get('/api/dlq', async (req, res) => {
    const parsed = parseDlqQuery(req.query as Record<string, unknown>);
    if (!parsed.ok) return invalid(res, parsed.issues);
    const { limit, offset, jobId } = parsed.value;
    const dead = await daemon.frontier.listDead({ limit, offset, ...(jobId ? { jobId } : {}) });
    res.json({ items: dead.map(deadLetterView), limit, offset });
  });

  app.post('/api/dlq/redrive', ...mutating, async (req, res) => {
    const parsed = parseRedrive(req.body);
    if (!parsed.ok) return invalid(res, parsed.issues);
    if (!daemon.ready()) return unavailable(res);
    const redriven = await daemon.frontier.redrive(parsed.value);
    // Redriven tasks are ready now; wake the scheduler rather than wait for its next timer.
    daemon.scheduler.kick();
    daemon.logger.info('admin: dead letters redriven', { redriven });
    res.json({ redriven });
  });
}
