/**
 * What each job keeps in the map stores beside the frontier: its cookie jar, its render
 * decisions (kind auto) and its trap memory. A reload keeps them while the job's options hold.
 */
import { JobCookieJar, type JobJarObserver } from '../adapters/cookies/job-jar.js';
import { StoredRenderDecisions } from '../adapters/shared-map/shared-render-decisions.js';
import { StoredTrapMemory } from '../adapters/shared-map/shared-trap-memory.js';
import type { JobConfig } from '../config/config.js';
import { trapOptionsOf } from '../config/schema/traps-schema.js';
import { scopeHostsOf } from '../config/scope-hosts.js';
import type { TrapOptions } from '../core/traps/trap-options.js';
import { TrapGuard } from '../engine/job/trap-guard.js';
import type { SharedMapStore } from '../ports/shared-map.js';
import type { BuiltFrontier, MapKind } from './frontier-types.js';
import { JobRegistry, type JobStateFactory } from './job-registry.js';
import type { JobState } from './jobs.js';
import type { Root } from './root.js';

/** Each registry's writes end before its store closes, and the stores before the frontier. */
export async function openJobStates(root: Root, store: BuiltFrontier) {
  const open = async <T>(
    kind: MapKind,
    [storeName, name]: readonly [string, string],
    factoryOf: (s: SharedMapStore) => JobStateFactory<T>,
  ) => {
    const mapStore = store.createMapStore(kind);
    await mapStore.open();
    root.stack.push(storeName, () => mapStore.close());
    const registry = new JobRegistry(factoryOf(mapStore));
    root.stack.push(name, () => registry.close());
    return registry;
  };
  const cookies = await open('cookies', ['cookie store', 'cookie jars'], (s) => cookieJars(root, s));
  const render = await open('render', ['render store', 'render decisions'], (s) => renderChoices(root, s));
  const traps = await open('traps', ['trap store', 'trap memories'], (s) => trapMemories(root, s));
  return {
    /** The job's state, opened, or kept from before a reload. */
    async of(job: JobConfig): Promise<JobState> {
      const cookieJar = await cookies.forJob(job);
      if (cookieJar) await seedConfigCookies(cookieJar, job);
      return {
        cookieJar,
        renderDecisions: await render.forJob(job),
        traps: (await traps.forJob(job))?.guard,
      };
    },
    /** For crawld_cookie_jar_cookies. */
    cookieSizes: (): [string, number][] => [...cookies.entries()].map(([id, jar]) => [id, jar.size]),
    *decided(): Iterable<readonly [string, string, 'http' | 'browser']> {
      for (const [job, d] of render.entries())
        for (const [host, decision] of d.decided()) yield [job, host, decision];
    },
  };
}

export type JobStates = Awaited<ReturnType<typeof openJobStates>>;

/** Jobs with `cookies.jar`; new limits open the jar again over what the store kept. */
function cookieJars(root: Root, store: SharedMapStore): JobStateFactory<JobCookieJar> {
  const observer: JobJarObserver = {
    received: (jobId, outcome) => root.events.emit('cookie', { jobId, outcome }),
    storeError: (jobId, op, error) => root.events.emit('cookieStoreError', { jobId, op, error }),
  };
  return {
    keyOf: (job) =>
      job.cookies.jar
        ? JSON.stringify({ maxPerDomain: job.cookies.maxPerDomain, maxTotal: job.cookies.maxTotal })
        : undefined,
    async open(job) {
      const limits = { maxPerDomain: job.cookies.maxPerDomain, maxTotal: job.cookies.maxTotal };
      const jar = new JobCookieJar({ jobId: job.id, store, limits, observer });
      await jar.open();
      return jar;
    },
    release: (jar) => jar.close(),
  };
}

/**
 * `request.cookies` as if each host of the scope had set them, at start and on every reload (the
 * config wins): host-only on the seeds' hosts, domain cookies for `*.example.com`.
 */
async function seedConfigCookies(jar: JobCookieJar, job: JobConfig): Promise<void> {
  const cookies = job.request.cookies;
  if (Object.keys(cookies).length === 0) return;
  for (const pattern of scopeHostsOf(job)) {
    if (pattern === '*') continue;
    const wildcard = pattern.startsWith('*.');
    const host = (wildcard ? pattern.slice(2) : pattern).replace(/:\d+$/, '');
    let url: URL;
    try {
      url = new URL(`http://${host}/`);
    } catch {
      continue;
    }
    await jar.seed(url, cookies, wildcard ? url.hostname : undefined);
  }
}

/** Jobs of render kind auto. */
function renderChoices(root: Root, store: SharedMapStore): JobStateFactory<StoredRenderDecisions> {
  return {
    keyOf: (job) => (job.render.kind === 'auto' ? 'auto' : undefined),
    async open(job) {
      const decisions = new StoredRenderDecisions({
        jobId: job.id,
        store,
        now: () => root.clock.now(),
        onError: (op, error) => root.events.emit('internalError', { where: `render decisions ${op}`, error }),
        onDecision: (host, decision) => root.events.emit('renderDecision', { jobId: job.id, host, decision }),
      });
      await decisions.open();
      return decisions;
    },
    release: (decisions) => decisions.close(),
  };
}

interface GuardedMemory {
  readonly memory: StoredTrapMemory;
  readonly guard: TrapGuard;
}

/** Jobs with a trap defence on; changed trap options read what is stored again. */
function trapMemories(root: Root, store: SharedMapStore): JobStateFactory<GuardedMemory> {
  return {
    keyOf: (job) => {
      const options = trapOptionsOf(job.traps);
      return guarded(options) ? JSON.stringify(options) : undefined;
    },
    async open(job) {
      const options = trapOptionsOf(job.traps);
      const memory = new StoredTrapMemory({
        jobId: job.id,
        store,
        options,
        now: () => root.clock.now(),
        onError: (op, error) => root.events.emit('internalError', { where: `trap memory ${op}`, error }),
      });
      await memory.open();
      return { memory, guard: new TrapGuard({ jobId: job.id, options, memory, events: root.events }) };
    },
    release: (t) => t.memory.close(),
  };
}

/** Session ids alone need no guard: they are a rule of the key (core/url.ts). */
function guarded(o: TrapOptions): boolean {
  return o.learnParams || o.repeatedPaths || o.nearDuplicates || o.soft404;
}
