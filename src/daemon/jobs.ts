import { productToken } from '../adapters/robots/robots-txt.js';
import type { JobConfig } from '../config/config.js';
import { keyOptionsOf } from '../config/key-options.js';
import { scopeHostsOf } from '../config/scope-hosts.js';
import type { ScopeRules } from '../core/rules.js';
import { discoveredUrl } from '../core/url.js';
import type { JobRuntime } from '../engine/job/job-runtime.js';
import type { TrapGuard } from '../engine/job/trap-guard.js';
import type { CookieJar } from '../ports/cookie-jar.js';
import type { EnqueueRequest } from '../ports/frontier.js';
import type { RenderDecisions } from '../ports/render-decisions.js';
import { compileExtractor, compileRequest } from './job-request.js';

/** `robots: true | false | { txt, meta, dropNoindex }` as the runner reads it. */
function robotsSettings(robots: JobConfig['robots'], userAgent: string) {
  const r = typeof robots === 'boolean' ? { txt: robots, meta: robots, dropNoindex: false } : robots;
  return {
    robots: r.txt,
    robotsMeta: r.meta,
    dropNoindex: r.dropNoindex,
    robotsToken: productToken(userAgent),
  };
}

/** What a job keeps beside the frontier (job-states.ts). */
export interface JobState {
  readonly cookieJar?: CookieJar | undefined;
  readonly renderDecisions?: RenderDecisions | undefined;
  readonly traps?: TrapGuard | undefined;
}

export function compileJob(job: JobConfig, defaultUserAgent = 'crawld', state: JobState = {}): JobRuntime {
  const { cookieJar, renderDecisions, traps } = state;
  const scope: ScopeRules = {
    hosts: scopeHostsOf(job),
    include: job.scope.include.map((r) => new RegExp(r)),
    exclude: job.scope.exclude.map((r) => new RegExp(r)),
    maxDepth: job.scope.maxDepth,
    // Hosts the config names are the scope; otherwise where the seeds redirect joins it.
    ...(job.scope.hosts ? {} : { redirectHosts: new Set<string>() }),
  };
  // With a jar, request.cookies seed it (job-states.ts) instead of riding on every request.
  const request = compileRequest(job.request, cookieJar !== undefined);
  return {
    id: job.id,
    extractor: compileExtractor(job.extract),
    method: request.method,
    headers: request.headers,
    ...(request.body !== undefined ? { body: request.body } : {}),
    scope,
    normalise: traps !== undefined ? traps.keyOptions(keyOptionsOf(job)) : keyOptionsOf(job),
    ...(traps !== undefined ? { traps } : {}),
    recrawlIntervalMs: job.recrawlIntervalMs,
    ...(job.recrawlIntervalMs !== undefined
      ? {
          recrawl: {
            startMs: job.recrawlIntervalMs,
            minMs: job.recrawl?.minIntervalMs ?? job.recrawlIntervalMs,
            maxMs: job.recrawl?.maxIntervalMs ?? job.recrawlIntervalMs,
            adaptive: job.recrawl?.adaptive ?? false,
          },
        }
      : {}),
    recordUnchanged: job.recordUnchanged,
    ...(job.proxy !== undefined ? { proxy: typeof job.proxy === 'string' ? [job.proxy] : job.proxy } : {}),
    maxLinksPerPage: job.scope.maxLinksPerPage,
    ...robotsSettings(job.robots, request.headers['user-agent'] ?? defaultUserAgent),
    detectChanges: job.detectChanges ?? job.recrawlIntervalMs !== undefined,
    ...(job.render.kind !== 'http' ? { render: job.render } : {}),
    ...(job.render.kind === 'auto'
      ? { renderChoice: { samplePages: job.render.samplePages, recheckEvery: job.render.recheckEvery } }
      : {}),
    requiredFields: requiredFields(job.extract),
    ...(cookieJar !== undefined ? { cookieJar } : {}),
    ...(renderDecisions !== undefined ? { renderDecisions } : {}),
  };
}

function requiredFields(extract: JobConfig['extract']): string[] {
  return Object.entries(extract?.fields ?? {})
    .filter(
      ([, rule]) => typeof rule === 'object' && rule !== null && 'required' in rule && rule.required === true,
    )
    .map(([name]) => name);
}

export function seedRequests(job: JobConfig): EnqueueRequest[] {
  return job.seeds.map((s) => ({
    ...discoveredUrl(s, undefined, keyOptionsOf(job)),
    jobId: job.id,
    priority: job.seedPriority,
    depth: 0,
  }));
}
