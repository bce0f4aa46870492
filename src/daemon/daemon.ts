import { join, resolve } from 'node:path';
import { MemoryPageStateStore, SqlitePageStateStore } from '../adapters/page-state/sqlite-page-state.js';
import { resolveAdminToken } from '../admin/auth.js';
import type { CrawldConfig } from '../config/config.js';
import { loopLimitOptionsOf } from '../config/control-options.js';
import { systemClock } from '../core/clock.js';
import { type CrawlEmitter, type CrawlEvents, TypedEmitter } from '../core/events.js';
import type { JobRuntime } from '../engine/job/job-runtime.js';
import { recoverLeases } from '../engine/recovery/lease-recovery.js';
import { PartialRecords } from '../engine/recovery/partial-records.js';
import { createLogger, type Logger, redactUrl } from '../observe/logger.js';
import type { ChangeSink, PageStateStore } from '../ports/page-state.js';
import type { Sink } from '../ports/sink.js';
import type { Daemon, DaemonOptions } from './daemon-types.js';
import { lockDataDir } from './data-dir-lock.js';
import { buildControl, createFetching, createScheduler } from './engine.js';
import { startEventLoopMonitor } from './event-loop-monitor.js';
import type { ExchangeTaps } from './exchange-taps.js';
import { openFrontier } from './frontier-factory.js';
import type { BuiltFrontier } from './frontier-types.js';
import { daemonHandle } from './handle.js';
import { openHttp } from './http-listener.js';
import { openJobStates } from './job-states.js';
import { compileJob, seedRequests } from './jobs.js';
import { leaseOwnerOf } from './lease-owner.js';
import { ReleaseStack, withReleasers } from './release-stack.js';
import { instanceIdOf, type Live, type Root } from './root.js';
import { createChangeSinks, createSinks, sinksForJob } from './sink-factory.js';
import { createSitemaps } from './sitemap-factory.js';
import { openLimitHints } from './start-limits.js';

export type { Daemon, DaemonOptions } from './daemon-types.js';
export { instanceIdOf } from './root.js';

/**
 * The composition root: the only place where config becomes components; nothing below reads
 * config or the environment. Every resource opened goes on the release stack.
 */
export async function createDaemon(config: CrawldConfig, options: DaemonOptions): Promise<Daemon> {
  const clock = options.clock ?? systemClock;
  const instanceId = instanceIdOf(config);
  const logger = options.logger ?? createLogger({ level: config.log.level, instanceId });
  // Before anything opens: a bad token file must fail before the data dir is locked.
  const adminToken = resolveAdminToken(config.http);
  const stack = new ReleaseStack((resource, error) =>
    error === undefined
      ? logger.debug('released', { resource })
      : logger.warn('release failed', { resource, error: String(error) }),
  );
  return withReleasers(stack, async () => {
    const live = { config, adminToken, stopping: false } as Live;
    const root: Root = {
      clock,
      logger,
      events: crawlEvents(logger),
      instanceId,
      dataDir: resolve(config.dataDir),
      once: options.once,
      stack,
      live,
    };
    const { store, http, leaseOwner } = await openStores(root);
    // Before the first host is met: a daemon joining a crawl starts its hosts near the others' limits.
    const hints = await openLimitHints(root, store);
    live.built = buildControl(root, config, store, hints);
    // On whichever limiters are live: a reload replaces them and may change the options.
    const lag = startEventLoopMonitor({
      limit: () => loopLimitOptionsOf(live.config.concurrency),
      target: () => live.built.limiters,
      onLimitChange: (limit, reason) => logger.debug('global concurrency limit changed', { limit, reason }),
    });
    stack.push('event loop monitor', () => lag.stop());
    const fetching = createFetching(root, http?.url);
    const states = await openJobStates(root, store);
    const jobs = new Map<string, JobRuntime>();
    for (const j of config.jobs) jobs.set(j.id, compileJob(j, config.fetch.userAgent, await states.of(j)));
    const storage = await openSinks(root, jobs, fetching.taps);
    const partial = new PartialRecords();
    const sinksFor = sinksForJob(config, storage.sinks);
    const { scheduler, jobGate } = createScheduler(root, {
      store,
      fetching,
      lag,
      jobs,
      partial,
      sinksFor,
      leaseOwner,
      ...storage,
    });
    await recoverAndSeed(root, store, jobs, storage.sinks, sinksFor, partial, leaseOwner);
    const sitemaps = await startSitemaps(root, jobs, store, () => scheduler.kick(true), fetching.taps);
    logStarted(root);
    return daemonHandle(root, {
      store,
      hints,
      http,
      fetching,
      scheduler,
      jobGate,
      jobs,
      sitemaps,
      states,
      ...storage,
    });
  });
}

function trapLearnedMessage(kind: 'param' | 'pattern' | 'soft_404'): string {
  if (kind === 'param') return "trap: a parameter does not change this host's pages; dropped from its keys";
  if (kind === 'pattern') return 'trap: URL pattern stopped, its pages are near-duplicates';
  return 'trap: soft 404 probed';
}

/**
 * A listener's throw is logged and counted as an internal error, never the emitter's
 * caller's failure (the scheduler's pump took one for a frontier failure and stopped).
 */
function crawlEvents(logger: Logger): CrawlEmitter {
  const events: CrawlEmitter = new TypedEmitter<CrawlEvents>({
    onListenerError: (event, error) => {
      logger.error('event listener failed', { event, error: String(error) });
      if (event !== 'internalError') events.emit('internalError', { where: `listener:${event}`, error });
    },
  });
  // What a host taught: a parameter's name, a pattern (numbers abstracted) or a soft 404's kind.
  events.on('trapLearned', (e) =>
    logger.info(trapLearnedMessage(e.kind), { job: e.jobId, host: e.host, [e.kind]: e.what }),
  );
  // One line per task that gave up: what an operator greps for after a failure-rate page.
  events.on('deadLettered', (e) =>
    logger.warn('task dead-lettered', {
      job: e.jobId,
      host: e.host,
      url: redactUrl(e.url),
      reason: e.reason,
      attempts: e.attempts,
    }),
  );
  // Debug: a tail of hung requests is part of normal crawling; the counts are in the metrics.
  events.on('fetchError', (e) => {
    if (e.reason === 'hung')
      logger.debug("request hung: given up at its host's learned timeout", {
        job: e.jobId,
        host: e.host,
        phase: e.phase,
      });
  });
  // Never the cookie or its value: only which job's store and what failed.
  events.on('cookieStoreError', (e) =>
    logger.warn('cookie store failed: the jar goes on from memory', {
      job: e.jobId,
      op: e.op,
      error: String(e.error),
    }),
  );
  events.on('renderDecision', (e) =>
    logger.info('host render decided', { job: e.jobId, host: e.host, decision: e.decision }),
  );
  events.on('scopeWidened', (e) =>
    logger.info('seed redirected: host joins the scope', { job: e.jobId, host: e.host, from: e.from }),
  );
  return events;
}

async function openStores(root: Root) {
  const { config } = root.live;
  // Still one daemon per data dir with a shared frontier: the dir holds this daemon's results.
  root.stack.push('lock', lockDataDir(root.dataDir));
  // Read (or minted) once, under the lock: the recovery and the scheduler must agree on it.
  const leaseOwner = leaseOwnerOf(config, root.dataDir);
  // Bound before the crawl starts, so a port in use fails before any work.
  const http = await openHttp(config, {
    clock: root.clock,
    logger: root.logger,
    adminToken: () => root.live.adminToken,
  });
  if (http) root.stack.push('http', () => http.close());
  const store: BuiltFrontier = await openFrontier(config, {
    clock: root.clock,
    dataDir: root.dataDir,
    instanceId: root.instanceId,
    onConnection: (up, err) =>
      up
        ? root.logger.info('frontier store reachable', { frontier: config.frontier.kind })
        : root.logger.warn('frontier store unreachable: not ready, retrying', {
            ...(err !== undefined ? { error: String(err) } : {}),
          }),
    onRateError: (err) => root.logger.debug('shared rate limit unavailable', { error: String(err) }),
  }).then((opened) => {
    root.stack.push('frontier', () => opened.release());
    return opened;
  });
  return { store, http, leaseOwner };
}

async function openSinks(root: Root, jobs: ReadonlyMap<string, JobRuntime>, taps: ExchangeTaps | undefined) {
  const { config } = root.live;
  const trackChanges = [...jobs.values()].some((j) => j.detectChanges);
  // Recrawling jobs keep validators and intervals in the page state even without change records.
  const keepPages = trackChanges || [...jobs.values()].some((j) => j.recrawl);
  // Before the sinks open: a WARC sink closes at open the files a crash left open.
  if (taps) root.events.on('warcFileClosed', (e) => root.logger.info('warc file closed', { ...e }));
  const sinks: Sink[] = await createSinks(config, root.dataDir, root.events, {
    instanceId: root.instanceId,
    taps,
  });
  // Released after every sink below it: the shutdown log's milestone.
  root.stack.push('sinks flushed', () => {
    if (root.live.stopping) root.logger.info('shutdown: sinks flushed');
  });
  for (const s of sinks) {
    await s.open();
    root.stack.push(`sink ${s.name}`, () => s.close());
  }
  const pageState: PageStateStore | undefined = !keepPages
    ? undefined
    : config.frontier.kind === 'memory'
      ? new MemoryPageStateStore()
      : new SqlitePageStateStore(join(root.dataDir, 'pages.db'));
  if (pageState) {
    await pageState.open();
    root.stack.push('page state', () => pageState.close());
  }
  const changeSinks: ChangeSink[] = trackChanges ? createChangeSinks(config, root.dataDir, root.events) : [];
  for (const s of changeSinks) {
    await s.open();
    root.stack.push('change sink', () => s.close());
  }
  return { sinks, pageState, changeSinks };
}

/** Hands back the leases of a dead previous run, then enqueues every job's seeds. */
async function recoverAndSeed(
  root: Root,
  store: BuiltFrontier,
  jobs: ReadonlyMap<string, JobRuntime>,
  sinks: readonly Sink[],
  sinksFor: (jobId: string) => readonly Sink[],
  partial: PartialRecords,
  leaseOwner: string,
): Promise<void> {
  const { clock, logger } = root;
  // A shared frontier's other leases may be live daemons': only our dead run's are reconciled
  // (the rest come back by expiry). docs/redis.md.
  {
    const recovered = await recoverLeases(
      store.frontier,
      sinks,
      clock.now(),
      (jobId) => {
        const j = jobs.get(jobId);
        return j?.recrawlIntervalMs !== undefined ? clock.now() + j.recrawlIntervalMs : undefined;
      },
      sinksFor,
      partial,
      !store.shared ? undefined : leaseOwner,
    );
    if (recovered.acked + recovered.returned > 0)
      logger.info('recovered leases of a previous run', recovered);
  }
  for (const job of root.live.config.jobs) {
    const res = await store.frontier.enqueue(seedRequests(job));
    logger.info('job seeded', { job: job.id, seeds: job.seeds.length, ...res });
  }
}

/** Sitemap discovery, awaited before the crawl starts so that --once cannot finish first. */
async function startSitemaps(
  root: Root,
  jobs: ReadonlyMap<string, JobRuntime>,
  store: BuiltFrontier,
  kick: () => void,
  taps: ExchangeTaps | undefined,
) {
  const sitemaps = createSitemaps(root.live.config, {
    dataDir: root.dataDir,
    logger: root.logger,
    taps,
    jobs,
    enqueue: async (requests) => {
      const res = await store.frontier.enqueue(requests);
      kick();
      return res;
    },
  });
  if (!sitemaps) return undefined;
  // stop() closes the sitemaps first (before the drain); the stack closes them on a failed start.
  let closed: Promise<void> | undefined;
  const close = () => (closed ??= sitemaps.close());
  root.stack.push('sitemaps', close);
  await sitemaps.discoverAll();
  if (!root.once) sitemaps.startRefresh();
  return { close };
}

function logStarted(root: Root): void {
  const { config } = root.live;
  root.logger.info('crawld started', {
    instance: root.instanceId,
    dataDir: root.dataDir,
    frontier: config.frontier.kind,
    jobs: config.jobs.map((j) => j.id),
    once: root.once,
    // A summary, not the config: sink URLs and headers may hold secrets.
    concurrency: { global: config.concurrency.global, maxPerHost: config.concurrency.maxPerHost },
    adaptive: config.concurrency.adaptive,
    globalRatePerSec: config.rateLimits.global?.ratePerSec ?? null,
    hostRateRules: config.rateLimits.hosts.length,
    sinks: config.sinks.map((s) => s.kind),
  });
}
