/**
 * A job's trap defences (docs/traps.md): core/traps/ rules read per link, per task before its
 * fetch and per fetched page, with each host's state in the job's TrapMemory.
 */
import { randomBytes } from 'node:crypto';
import type { CrawlEmitter } from '../../core/events.js';
import type { NormaliseOptions } from '../../core/rules.js';
import { fingerprint } from '../../core/traps/fingerprint.js';
import type { PageVerdict } from '../../core/traps/host-traps.js';
import { hasRepeatedRun } from '../../core/traps/paths.js';
import type { TrapOptions, TrapReason } from '../../core/traps/trap-options.js';
import { splitKey } from '../../core/traps/url-pattern.js';
import { tryNormaliseUrl } from '../../core/url.js';
import type { FetchResponse } from '../../ports/fetcher.js';
import type { EnqueueRequest, Task } from '../../ports/frontier.js';
import type { TrapMemory } from '../../ports/trap-memory.js';

/** The path of a soft-404 probe: a random name no site has. */
const PROBE_PATH = /^\/crawld-404-probe-[0-9a-f]{16}$/;

export interface TrapGuardOptions {
  readonly jobId: string;
  readonly options: TrapOptions;
  readonly memory: TrapMemory;
  readonly events: CrawlEmitter;
}

export class TrapGuard {
  readonly #g: TrapGuardOptions;

  constructor(options: TrapGuardOptions) {
    this.#g = options;
  }

  get options(): TrapOptions {
    return this.#g.options;
  }

  keyOptions(base: NormaliseOptions): NormaliseOptions {
    const o = this.#g.options;
    return {
      ...base,
      stripSessionIds: o.sessionIds,
      ...(o.learnParams ? { ignoredParams: (host: string) => this.#g.memory.peek(host)?.ignoredParams } : {}),
    };
  }

  /** The reason not to follow a link, if any. Runs on every link: strings are cut only when a rule may apply. */
  linkVerdict(key: string): 'repeated_path' | 'long_path' | 'near_duplicate_series' | undefined {
    const o = this.#g.options;
    const hostStart = key.indexOf('//') + 2;
    const pathStart = key.indexOf('/', hostStart);
    if (pathStart < 0) return undefined;
    const q = key.indexOf('?', pathStart);
    const pathEnd = q < 0 ? key.length : q;
    if (o.repeatedPaths) {
      let segments = 0;
      for (let i = key.indexOf('/', pathStart); i >= 0 && i < pathEnd; i = key.indexOf('/', i + 1))
        segments++;
      if (key[pathEnd - 1] === '/') segments--;
      if (segments > o.maxPathSegments) return 'long_path';
      if (
        segments > o.maxSegmentRepeats &&
        hasRepeatedRun(key.slice(pathStart, pathEnd), o.maxSegmentRepeats)
      )
        return 'repeated_path';
    }
    if (!this.#g.memory.anyStopped) return undefined;
    const { host, path, search } = splitKey(key);
    return this.#stopped(host, path, search) ? 'near_duplicate_series' : undefined;
  }

  /** Stopped since it was enqueued, or held back (HostTraps.holdsBack). */
  inStoppedPattern(task: Task): boolean {
    if (!this.#g.memory.anyStopped) return false;
    const { path, search } = splitKey(task.url);
    if (this.#stopped(task.host, path, search)) return true;
    return this.#g.memory.peek(task.host)?.holdsBack(path, search, task.depth) === true;
  }

  #stopped(host: string, path: string, search: string): boolean {
    const traps = this.#g.memory.peek(host);
    return traps?.hasStopped === true && traps.isStopped(traps.patternOf(path, search));
  }

  /** The task's key under what its host learned since, when that differs (enqueued instead). */
  reKey(task: Task, normalise: NormaliseOptions): string | undefined {
    if (!this.#g.options.learnParams) return undefined;
    const host = this.#g.memory.peek(task.host);
    if (host === undefined || host.ignoredParams.size === 0) return undefined;
    const key = tryNormaliseUrl(task.requestUrl ?? task.url, undefined, normalise);
    return key !== undefined && key !== task.url ? key : undefined;
  }

  isProbe(task: Task): boolean {
    return PROBE_PATH.test(splitKey(task.url).path);
  }

  /** A fetched 2xx HTML page; a host's first page returns its soft-404 probe to enqueue. */
  observe(
    task: Task,
    res: FetchResponse,
    contentHash: string,
  ): { verdict: PageVerdict; probe?: EnqueueRequest } {
    const memory = this.#g.memory;
    const host = memory.get(task.host);
    const verdict = host.observe({
      url: task.requestUrl ?? task.url,
      key: task.url,
      finalUrl: res.url,
      depth: task.depth,
      contentHash,
      fingerprint: () => fingerprint(res.body),
    });
    if (verdict.changed) memory.save(task.host);
    for (const p of verdict.learnedParams) this.#learned(task.host, 'param', p);
    if (verdict.stoppedPattern !== undefined) this.#learned(task.host, 'pattern', verdict.stoppedPattern);
    if (verdict.notExpanded !== undefined) this.count(task.host, verdict.notExpanded, 1);
    if (!host.takeProbe()) return { verdict };
    const origin = new URL(task.url).origin;
    const probe: EnqueueRequest = {
      url: `${origin}/crawld-404-probe-${randomBytes(8).toString('hex')}`,
      jobId: task.jobId,
      // Before the page's links (lower is sooner): pages answered before the probe are not checked.
      priority: task.priority - 1,
      depth: task.depth,
    };
    return { verdict, probe };
  }

  /** Undefined: a 404, an error, robots said no. */
  probed(task: Task, res: FetchResponse | undefined, contentHash: string | undefined): void {
    const memory = this.#g.memory;
    const host = memory.get(task.host);
    host.probed(
      res === undefined || contentHash === undefined
        ? undefined
        : {
            url: task.url,
            finalUrl: res.url,
            contentHash,
            fingerprint: () => fingerprint(res.body),
          },
    );
    memory.save(task.host);
    this.#learned(task.host, 'soft_404', host.soft404);
  }

  count(host: string, reason: TrapReason, urls: number): void {
    if (urls > 0) this.#g.events.emit('trap', { jobId: this.#g.jobId, host, reason, urls });
  }

  #learned(host: string, kind: 'param' | 'pattern' | 'soft_404', what: string): void {
    this.#g.events.emit('trapLearned', { jobId: this.#g.jobId, host, kind, what });
  }
}
