/**
 * The daemon's cookie jars: one per job with `cookies.jar`, over the cookie store that sits
 * beside the frontier (frontier-types.ts createMapStore('cookies')). A reload keeps a job's jar, and
 * with it the sessions it holds.
 */
import { JobCookieJar, type JobJarObserver } from '../adapters/cookies/job-jar.js';
import type { JobConfig } from '../config/config.js';
import { scopeHostsOf } from '../config/scope-hosts.js';
import type { SharedMapStore } from '../ports/shared-map.js';

export class CookieJars {
  readonly #jars = new Map<string, { jar: JobCookieJar; limits: string }>();

  readonly #store: SharedMapStore;
  readonly #observer: JobJarObserver;

  constructor(store: SharedMapStore, observer: JobJarObserver) {
    this.#store = store;
    this.#observer = observer;
  }

  /**
   * The job's jar, opened and seeded with the config's `request.cookies` (the config wins over
   * a value the jar kept, at start and on reload); undefined for a job without a jar.
   */
  async forJob(job: JobConfig): Promise<JobCookieJar | undefined> {
    if (!job.cookies.jar) return undefined;
    const limits = { maxPerDomain: job.cookies.maxPerDomain, maxTotal: job.cookies.maxTotal };
    let entry = this.#jars.get(job.id);
    if (!entry || entry.limits !== JSON.stringify(limits)) {
      const jar = new JobCookieJar({ jobId: job.id, store: this.#store, limits, observer: this.#observer });
      await jar.open();
      entry = { jar, limits: JSON.stringify(limits) };
      this.#jars.set(job.id, entry);
    }
    await seedConfigCookies(entry.jar, job);
    return entry.jar;
  }

  /** [job, cookies held] per jar, for crawld_cookie_jar_cookies. */
  sizes(): [string, number][] {
    return [...this.#jars].map(([id, e]) => [id, e.jar.size]);
  }

  async close(): Promise<void> {
    await Promise.all([...this.#jars.values()].map((e) => e.jar.close()));
  }
}

/**
 * `request.cookies` as if each host of the job's scope had set them: host-only cookies on the
 * seeds' hosts (and their www./apex twins), domain cookies for `*.example.com` patterns. A
 * redirect to another site does not carry them (the jar's rules), where the old header did.
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
