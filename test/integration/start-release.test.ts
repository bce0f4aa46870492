import { existsSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { expect, it } from 'vitest';
import winston from 'winston';
import { type ConfigInput, validateConfig } from '../../src/config/config.js';
import { createDaemon } from '../../src/daemon/daemon.js';
import { freePort, tempDir } from '../helpers/cli.js';

/**
 * The composition root's release stack: a start-up step that fails releases what the steps
 * before it opened, last opened first, so that the next start finds the data dir unlocked,
 * the port free and the frontier closed; stop() releases the same stack.
 */

/** A logger at debug level whose lines the test reads (the stack logs each release). */
function capture() {
  const lines: { message: string; resource?: string }[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l));
      cb();
    },
  });
  const logger = winston.createLogger({
    level: 'debug',
    format: winston.format.json(),
    transports: [new winston.transports.Stream({ stream })],
  });
  const released = () => lines.filter((l) => l.message === 'released').map((l) => l.resource);
  return { logger, lines, released };
}

/** Paths this process has open, from /proc/self/fd. */
function openFiles(): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      return [readlinkSync(`/proc/self/fd/${fd}`)];
    } catch {
      return [];
    }
  });
}

async function configWith(sinks: ConfigInput['sinks']) {
  const dir = tempDir('crawld-release-');
  const port = await freePort();
  return validateConfig({
    dataDir: join(dir, 'data'),
    log: { level: 'debug' },
    http: { port },
    frontier: { kind: 'sqlite', path: join(dir, 'queue.db') },
    fetch: { allowPrivateNetworks: true },
    jobs: [{ id: 'main', seeds: ['http://127.0.0.1:1/'], robots: false }],
    sinks,
  });
}

/** Binding the port succeeds only if nothing holds it. */
async function portFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

const OPENED_BEFORE_SINKS = [
  'sinks flushed',
  'trap memories',
  'trap store',
  'render decisions',
  'render store',
  'cookie jars',
  'cookie store',
  'breakers',
  'fetcher',
  'event loop monitor',
  'frontier',
  'http',
  'lock',
];

it.each([
  [
    'a JSONL sink whose directory cannot be created',
    (dir: string) => {
      // A regular file where the directory should be: ENOTDIR, even for root.
      writeFileSync(join(dir, 'not-a-dir'), '');
      return [{ kind: 'jsonl' as const, path: join(dir, 'not-a-dir', 'results.jsonl') }];
    },
  ],
  [
    'a PostgreSQL sink on a closed port',
    async () => [
      { kind: 'postgres' as const, url: `postgres://crawld@127.0.0.1:${await freePort()}/crawld` },
    ],
  ],
])(
  'a start that fails at %s releases the lock, the port, the frontier, in reverse order',
  async (_name, sinks) => {
    const base = await configWith(undefined);
    const dir = join(base.dataDir, '..');
    const config = validateConfig({ ...base, sinks: await sinks(dir) });
    const log = capture();
    await expect(createDaemon(config, { once: true, logger: log.logger })).rejects.toThrow();
    expect(log.released()).toEqual(OPENED_BEFORE_SINKS);
    expect(existsSync(join(config.dataDir, 'crawld.lock')), 'lock left behind').toBe(false);
    expect(await portFree(config.http.port!), 'port still bound').toBe(true);
    expect(
      openFiles().filter((p) => p.startsWith(join(dir, 'queue.db'))),
      'frontier still open',
    ).toEqual([]);

    // The next start on the same data dir, port and frontier succeeds.
    const daemon = await createDaemon(validateConfig({ ...base }), { once: true, logger: capture().logger });
    expect(daemon.httpUrl).toBe(`http://127.0.0.1:${config.http.port}`);
    await daemon.stop();
  },
  30_000,
);

it('a port in use fails the start before the frontier opens, and frees the lock', async () => {
  const config = await configWith(undefined);
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(config.http.port!, '127.0.0.1', r));
  try {
    const log = capture();
    await expect(createDaemon(config, { once: true, logger: log.logger })).rejects.toThrow(/EADDRINUSE/);
    expect(log.released()).toEqual(['lock']);
    expect(existsSync(join(config.dataDir, 'crawld.lock'))).toBe(false);
    expect(existsSync(config.frontier.path!), 'frontier created before the port').toBe(false);
  } finally {
    await new Promise<void>((r) => blocker.close(() => r()));
  }
});

it('stop() releases everything the start opened, last opened first', async () => {
  const config = await configWith(undefined);
  const log = capture();
  const daemon = await createDaemon(config, { once: false, logger: log.logger });
  const running = daemon.run();
  expect(openFiles().filter((p) => p.startsWith(config.frontier.path!)).length).toBeGreaterThan(0);
  await daemon.stop();
  await running;
  expect(log.released()).toEqual(['sink jsonl', ...OPENED_BEFORE_SINKS]);
  const messages = log.lines.map((l) => l.message);
  // The shutdown milestones keep their order around the releases.
  const at = (m: string) => messages.indexOf(m);
  expect(at('shutdown: drained')).toBeLessThan(at('shutdown: sinks flushed'));
  expect(at('shutdown: sinks flushed')).toBeLessThan(at('shutdown: frontier closed'));
  expect(existsSync(join(config.dataDir, 'crawld.lock'))).toBe(false);
  expect(await portFree(config.http.port!)).toBe(true);
  expect(openFiles().filter((p) => p.startsWith(config.frontier.path!))).toEqual([]);
  // The cookie jars' file beside the frontier is closed too.
  const cookies = join(config.frontier.path!, '..', 'cookies.db');
  expect(existsSync(cookies)).toBe(true);
  expect(openFiles().filter((p) => p.startsWith(cookies))).toEqual([]);
});
