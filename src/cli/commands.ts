import {
  type ConfigInput,
  type CrawldConfig,
  loadConfigFile,
  loadConfigInput,
  validateConfig,
} from '../config/config.js';
import { isHttpUrl } from '../config/predicates.js';
import { ConfigError, UsageError } from '../core/errors.js';
import { startDemoSite } from '../demo/site.js';
import { frontierOpt, intOpt, numOpt, parse, sinkUrlsOpt, strOpt } from './args.js';
import { commandSpec } from './command-table.js';
import { runDaemon } from './run-daemon.js';

/** Applies the flags every crawling command shares on top of a config, then validates once. */
function applyCommon(input: ConfigInput, values: Record<string, unknown>): CrawldConfig {
  const patch: ConfigInput = structuredClone(input);
  const dataDir = strOpt(values['data-dir']);
  if (dataDir) patch.dataDir = dataDir;
  const port = intOpt(values['http-port'], 'http-port', 0, 65535);
  if (port !== undefined) patch.http = { ...patch.http, port };
  if (values['allow-private-networks']) patch.fetch = { ...patch.fetch, allowPrivateNetworks: true };
  const maxConc = intOpt(values['max-concurrency'], 'max-concurrency', 1, 10_000);
  if (maxConc !== undefined) patch.concurrency = { ...patch.concurrency, maxPerHost: maxConc };
  const rate = numOpt(values.rate, 'rate', 0.001, 1_000_000);
  if (rate !== undefined) {
    patch.rateLimits = {
      ...patch.rateLimits,
      hosts: [{ hosts: '*', ratePerSec: rate }, ...(patch.rateLimits?.hosts ?? [])],
    };
  }
  const shared = frontierOpt(values.frontier);
  if (shared !== undefined) {
    // The flag names the store: whatever the config said about another kind's location goes.
    const { path: _sqlite, url: _redis, nodes: _cluster, ...rest } = patch.frontier ?? {};
    patch.frontier = { ...rest, ...shared };
  }
  addSinks(patch, sinkUrlsOpt(values.sink));
  const level = strOpt(values['log-level']);
  if (level) patch.log = { level: level as 'info' };
  return validateConfig(patch);
}

/**
 * --sink URL adds a PostgreSQL sink next to the configured ones (JSONL by default), with the
 * table and batching of the config's first postgres sink if it has one; a URL the config
 * already names is not added twice.
 */
function addSinks(patch: ConfigInput, urls: readonly string[]): void {
  if (urls.length === 0) return;
  const sinks = [...(patch.sinks ?? [{ kind: 'jsonl' as const }])];
  const found = sinks.find((s) => s.kind === 'postgres');
  // Its table and batching, but every job's records.
  const template = found ? { ...found, jobs: undefined } : {};
  for (const url of urls) {
    if (sinks.some((s) => s.kind === 'postgres' && s.url === url)) continue;
    sinks.push({ ...template, kind: 'postgres', url });
  }
  patch.sinks = sinks;
}

/** The config file's content, defaults not yet applied (flags override it). */
function baseInput(values: Record<string, unknown>): ConfigInput {
  const file = strOpt(values.config);
  return file ? (loadConfigInput(file, process.env) as ConfigInput) : { log: { level: 'warn' } };
}

export async function crawlCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, commandSpec('crawl'));
  if (positionals.length === 0) throw new UsageError('crawl: give at least one seed URL');
  const issues: string[] = [];
  positionals.forEach((u, i) => {
    if (!isHttpUrl(u)) issues.push(`seeds[${i}]: must be an absolute http(s) URL (got '${u}')`);
  });
  if (issues.length > 0) throw new ConfigError(issues);
  const load = () => {
    const input = baseInput(values);
    const jobs = input.jobs ?? [];
    const first = jobs[0];
    input.jobs = first
      ? [{ ...first, seeds: [...first.seeds, ...positionals] }, ...jobs.slice(1)]
      : [{ id: 'default', seeds: positionals }];
    return applyCommon(input, values);
  };
  return runDaemon(load(), {
    once: Boolean(values.once),
    logToStderr: true,
    progress: !values['no-progress'],
    ...(values.config ? { reloadConfig: load } : {}),
  });
}

export async function runCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, commandSpec('run'));
  if (positionals.length > 0) throw new UsageError(`run: unexpected argument '${positionals[0]}'`);
  const file = strOpt(values.config);
  if (!file) throw new UsageError('run: --config FILE is required');
  const load = () => applyCommon(loadConfigInput(file, process.env) as ConfigInput, values);
  return runDaemon(load(), {
    once: Boolean(values.once),
    logToStderr: false,
    progress: !values['no-progress'],
    reloadConfig: load,
  });
}

export function checkConfigCommand(argv: string[]): number {
  const { positionals } = parse(argv, commandSpec('check-config'));
  const file = positionals[0];
  if (!file || positionals.length > 1) throw new UsageError('check-config: give exactly one FILE');
  const config = loadConfigFile(file, process.env);
  process.stdout.write(`${file}: ok (${config.jobs.length} job${config.jobs.length === 1 ? '' : 's'})\n`);
  return 0;
}

function siteArgs(values: Record<string, unknown>, portKey: string, defaultPort: number) {
  return {
    port: intOpt(values[portKey], portKey, 0, 65535) ?? defaultPort,
    pages: intOpt(values.pages, 'pages', 1, 10_000_000) ?? 1000,
    latencyMs: intOpt(values['latency-ms'], 'latency-ms', 0, 600_000) ?? 0,
    errorRate: numOpt(values['error-rate'], 'error-rate', 0, 1) ?? 0,
    capacity: intOpt(values.capacity, 'capacity', 1, 1_000_000),
    js: Boolean(values.js),
  };
}

export async function siteCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, commandSpec('site'));
  if (positionals.length > 0) throw new UsageError(`site: unexpected argument '${positionals[0]}'`);
  // A cycle is one price epoch: with --change-rate R, that fraction of pages changes per cycle.
  const cycleMs = intOpt(values['cycle-ms'], 'cycle-ms', 1, 2_147_483_647) ?? 60_000;
  const start = Date.now();
  const site = await startDemoSite({
    ...siteArgs(values, 'port', 8300),
    host: strOpt(values.host) ?? '127.0.0.1',
    changeRate: numOpt(values['change-rate'], 'change-rate', 0, 1),
    ...(values['change-rate'] !== undefined || values['cycle-ms'] !== undefined
      ? { priceEpoch: () => Math.floor((Date.now() - start) / cycleMs) }
      : {}),
  });
  const mode = values.js ? ', JavaScript-rendered' : '';
  process.stdout.write(
    `crawld demo site: ${site.url} (${siteArgs(values, 'port', 8300).pages} pages${mode})\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  await site.close();
  return 0;
}

export const DEMO_SITE_PORT = 8931;

export async function demoCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, commandSpec('demo'));
  if (positionals.length > 0) throw new UsageError(`demo: unexpected argument '${positionals[0]}'`);
  const s = siteArgs(values, 'site-port', DEMO_SITE_PORT);
  const site = await startDemoSite(s);
  try {
    const base: ConfigInput = {
      dataDir: './data/demo',
      log: { level: 'warn' },
      fetch: { allowAddresses: [`127.0.0.1:${site.port}`] },
      jobs: [
        {
          id: 'demo',
          seeds: [`${site.url}/`],
          // --js: the shop renders its products with JavaScript, so the demo renders them too,
          // until the price is there (the product JSON comes after the load event).
          ...(s.js ? { render: { kind: 'browser' as const, waitForSelector: 'span.price' } } : {}),
          extract: {
            fields: {
              title: { selector: 'h1.title' },
              price: { selector: 'span.price', type: 'number' },
            },
          },
        },
      ],
    };
    const config = applyCommon(base, values);
    process.stderr.write(`crawld demo: crawling ${s.pages} pages of ${site.url}/ into ${config.dataDir}\n`);
    return await runDaemon(config, {
      once: Boolean(values.once),
      logToStderr: true,
      progress: !values['no-progress'],
    });
  } finally {
    await site.close();
  }
}
