import type { z } from 'zod';
import { REDIS_PRIORITY_MAX, REDIS_PRIORITY_MIN } from '../ports/frontier.js';
import { isRedisKind, isRedisNode, isRedisUrl } from './predicates.js';

/** The rules between options, run by the schema after each part parsed. */

export function recrawlIssues(
  j: {
    recrawlIntervalMs?: number | undefined;
    recrawl?: { minIntervalMs: number; maxIntervalMs: number } | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  const r = j.recrawl;
  if (!r) return;
  const issue = (path: PropertyKey[], message: string) => ctx.addIssue({ code: 'custom', path, message });
  if (r.minIntervalMs > r.maxIntervalMs) issue(['recrawl', 'minIntervalMs'], 'must not exceed maxIntervalMs');
  else if (j.recrawlIntervalMs === undefined)
    issue(['recrawlIntervalMs'], 'is required with recrawl (the starting interval)');
  else if (j.recrawlIntervalMs < r.minIntervalMs || j.recrawlIntervalMs > r.maxIntervalMs)
    issue(['recrawlIntervalMs'], 'must lie within recrawl.minIntervalMs..maxIntervalMs');
}

export function frontierIssues(
  f: {
    kind: string;
    path?: string | undefined;
    url?: string | undefined;
    nodes?: string[] | undefined;
    keyPrefix?: string | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  const issue = (path: PropertyKey[], message: string) => ctx.addIssue({ code: 'custom', path, message });
  if (f.kind === 'redis') {
    if (f.url === undefined) issue(['url'], "required when kind is 'redis' (redis://HOST:PORT/DB)");
    else if (!isRedisUrl(f.url)) issue(['url'], 'must be a redis://HOST:PORT/DB or rediss:// URL');
  } else if (f.url !== undefined) issue(['url'], "is for kind 'redis'");
  if (f.kind === 'redis-cluster') {
    if (f.nodes === undefined)
      issue(['nodes'], 'required when kind is \'redis-cluster\' (["HOST:PORT", ...])');
    f.nodes?.forEach((n, i) => {
      if (!isRedisNode(n)) issue(['nodes', i], `must be HOST:PORT, got '${n}'`);
    });
  } else if (f.nodes !== undefined) issue(['nodes'], "is for kind 'redis-cluster'");
  if (isRedisKind(f.kind)) {
    if (f.path !== undefined) issue(['path'], "is for kind 'sqlite' (a redis frontier lives in Redis)");
  } else if (f.keyPrefix !== undefined) issue(['keyPrefix'], "is for kinds 'redis' and 'redis-cluster'");
}

interface Priorities {
  readonly frontier: { readonly kind: string };
  readonly jobs: readonly {
    readonly seedPriority: number;
    readonly sitemaps?: { readonly priority?: number | undefined } | undefined;
    readonly extract?:
      | {
          readonly type: string;
          readonly follow: readonly { readonly priority: number }[];
          readonly followAllLinks?: false | { readonly priority: number };
        }
      | undefined;
  }[];
}

/**
 * What a Redis frontier cannot do, found before any daemon starts: store priorities beyond
 * its range. (A lease may be shorter than a fetch: the daemon extends the lease of a task
 * while it runs, engine/scheduler/lease-keeper.ts.)
 */
export function redisIssues(config: Priorities, ctx: z.RefinementCtx): void {
  if (!isRedisKind(config.frontier.kind)) return;
  const check = (value: number, path: PropertyKey[]) => {
    if (value < REDIS_PRIORITY_MIN || value > REDIS_PRIORITY_MAX)
      ctx.addIssue({
        code: 'custom',
        path,
        message: `must be in [${REDIS_PRIORITY_MIN}, ${REDIS_PRIORITY_MAX}] with frontier kind '${config.frontier.kind}'`,
      });
  };
  config.jobs.forEach((job, j) => {
    check(job.seedPriority, ['jobs', j, 'seedPriority']);
    if (job.sitemaps?.priority !== undefined)
      check(job.sitemaps.priority, ['jobs', j, 'sitemaps', 'priority']);
    const e = job.extract;
    if (!e) return;
    e.follow.forEach((r, k) => {
      check(r.priority, ['jobs', j, 'extract', 'follow', k, 'priority']);
    });
    if (e.followAllLinks)
      check(e.followAllLinks.priority, ['jobs', j, 'extract', 'followAllLinks', 'priority']);
  });
}
