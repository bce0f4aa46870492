import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { UndiciFetcher } from '../../src/adapters/fetch/undici-fetcher.js';
import { MemoryFrontier } from '../../src/adapters/frontier/memory/memory-frontier.js';
import { RobotsCache } from '../../src/adapters/robots/robots-cache.js';
import { JsonlSink } from '../../src/adapters/sink/jsonl-sink.js';
import { type ConfigInput, validateConfig } from '../../src/config/config.js';
import { retryPolicyOptions } from '../../src/config/control-options.js';
import { FakeClock } from '../../src/core/clock.js';
import { type CrawlEmitter, type CrawlEvents, TypedEmitter } from '../../src/core/events.js';
import { createControlPlane } from '../../src/daemon/control-factory.js';
import { fetcherOptions } from '../../src/daemon/fetcher-options.js';
import { compileJob } from '../../src/daemon/jobs.js';
import { Scheduler, type SchedulerOptions } from '../../src/engine/scheduler/scheduler.js';
import { createRetryPolicy } from '../../src/engine/task/retry-policy.js';
import { TaskRunner } from '../../src/engine/task/task-runner.js';
import { started } from './cleanup.js';
import { tempDir } from './cli.js';

/**
 * The crawl engine of one test, wired as the daemon wires it but on a FakeClock: a real
 * in-memory frontier, the real control plane, retry policy and task runner, the undici
 * fetcher against a node:http server on 127.0.0.1:0, and a JSONL sink in a temp dir. Time
 * (rate limits, retry delays, drain deadlines) moves only when the test advances the clock;
 * requests still travel over real sockets.
 */

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface Site {
  /** http://127.0.0.1:PORT */
  readonly origin: string;
  readonly port: number;
  /** Requests received, by path. */
  readonly hits: string[];
  close(): Promise<void>;
}

/** `routes`: a handler per path (others get 404), or one handler for every request. */
export async function startSite(routes: Record<string, Handler> | Handler): Promise<Site> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const handler = typeof routes === 'function' ? routes : routes[req.url ?? ''];
    if (handler) handler(req, res);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    hits,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

export const html =
  (body: string): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body>${body}</body></html>`);
  };

/** `robots`: the runner checks robots.txt (a RobotsCache on the fake clock) for jobs that ask. */
export async function startEngine(input: ConfigInput, opts: { robots?: boolean } = {}) {
  const dir = tempDir('crawld-engine-');
  const config = validateConfig({
    dataDir: dir,
    fetch: { allowPrivateNetworks: true },
    ...input,
  });
  const clock = new FakeClock();
  const events: CrawlEmitter = new TypedEmitter<CrawlEvents>();
  const frontier = new MemoryFrontier({ clock });
  await frontier.open();
  const built = createControlPlane(config, clock, () => 0.5);
  // Every name resolves to the test's servers on 127.0.0.1, never through real DNS.
  const lookup: LookupFunction = (_host, _opts, cb) => cb(null, [{ address: '127.0.0.1', family: 4 }]);
  const fetcher = new UndiciFetcher({ ...fetcherOptions(config, {}), lookup });
  const sink = new JsonlSink({ path: join(dir, 'results.jsonl') });
  await sink.open();
  const jobs = new Map(config.jobs.map((j) => [j.id, compileJob(j, config.fetch.userAgent)]));
  const retry = createRetryPolicy(retryPolicyOptions(config.retry), clock, () => 0.5);
  const runner = new TaskRunner({
    frontier,
    fetcher,
    sinks: [sink],
    jobs,
    retry,
    clock,
    events,
    lagMs: () => 0,
    ...(opts.robots
      ? { robots: new RobotsCache({ fetcher, clock, userAgent: config.fetch.userAgent }) }
      : {}),
  });
  const scheduler = (options: Partial<SchedulerOptions> = {}) =>
    new Scheduler(frontier, built.control, runner, clock, events, {
      owner: 'test',
      leaseMs: config.frontier.leaseMs,
      bufferSize: 64,
      perHostBuffer: 16,
      idlePollMs: 0,
      once: true,
      ...options,
    });
  return {
    config,
    clock,
    events,
    frontier,
    control: built.control,
    runner,
    retry,
    results: join(dir, 'results.jsonl'),
    scheduler,
    async close() {
      await sink.close();
      await fetcher.close();
      built.breakers.close();
      await frontier.close();
    },
  };
}

/**
 * Registers hooks that start startSite(routes) before the file's (or describe block's) tests,
 * empty its `hits` before each test and close it after all. Read the fields inside tests,
 * hooks or handlers.
 */
export function useSite(routes: Record<string, Handler> | Handler): Pick<Site, 'origin' | 'hits'> {
  let site: Site | undefined;
  beforeAll(async () => {
    site = await startSite(routes);
  });
  afterAll(() => site?.close());
  beforeEach(() => {
    site?.hits.splice(0);
  });
  const get = () => started(site, 'site not started (read outside a test?)');
  return {
    get origin() {
      return get().origin;
    },
    get hits() {
      return get().hits;
    },
  };
}

/** A few event-loop turns with nothing due: what a loop that wanted to act would have done. */
export async function turns(n = 50): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
}
