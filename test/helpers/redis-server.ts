/**
 * Starts a throwaway redis-server on 127.0.0.1 for a test file. A missing binary is a
 * failure, never a skip: a green run must mean the Redis adapters ran against real Redis.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { started } from './cleanup.js';
import { freePort } from './cli.js';
import { waitFor } from './wait.js';

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  /** Graceful shutdown (SIGTERM: with appendonly the AOF is flushed), then removes the data dir. */
  stop(): Promise<void>;
  /** stop() without removing the data dir, then the same server on the same port again. */
  restart(): Promise<void>;
  /** The two halves of restart(), to act while the server is down. */
  pause(): Promise<void>;
  resume(): Promise<void>;
}

export interface StartRedisOptions {
  /** appendonly yes with a private --dir, so restart() keeps the data. @default false */
  readonly persistent?: boolean;
  /** More redis-server arguments (e.g. cluster mode). */
  readonly extraArgs?: readonly string[];
  /** The port to listen on. @default a free port */
  readonly port?: number;
}

const BIN = 'redis-server';

export function requireRedisServer(): void {
  const r = spawnSync(BIN, ['--version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) {
    throw new Error(
      `${BIN} is not installed (${r.error?.message ?? `exit ${r.status}`}): ` +
        'run scripts/setup-test-env.sh, which installs the Debian package redis-server',
    );
  }
}

export async function startRedis(options: StartRedisOptions = {}): Promise<RedisServer> {
  requireRedisServer();
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'crawld-redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--daemonize', 'no'];
  args.push('--dir', dir, '--appendonly', options.persistent ? 'yes' : 'no', ...(options.extraArgs ?? []));
  let child = await launch(args, port);

  const halt = async () => {
    const proc = child;
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGTERM');
    await exited;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: async () => {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
    restart: async () => {
      await halt();
      child = await launch(args, port);
    },
    pause: halt,
    resume: async () => {
      child = await launch(args, port);
    },
  };
}

/** A redis-server for one test file and an ioredis client on it for the tests' own reads and writes. */
export interface RedisFixture {
  readonly server: RedisServer;
  readonly admin: Redis;
}

/**
 * Registers beforeAll/afterAll hooks that start a redis-server and connect `admin` to it, and
 * after all tests quit `admin` and stop the server. Read the fields inside tests or hooks.
 */
export function useRedis(options: StartRedisOptions = {}): RedisFixture {
  let server: RedisServer | undefined;
  let admin: Redis | undefined;
  beforeAll(async () => {
    server = await startRedis(options);
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    await admin?.quit();
    await server?.stop();
  });
  return {
    get server() {
      return started(server, 'redis fixture: redis-server not started (used outside a test?)');
    },
    get admin() {
      return started(admin, 'redis fixture: admin client not connected (used outside a test?)');
    },
  };
}

async function launch(args: string[], port: number): Promise<ChildProcess> {
  const child = spawn(BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (b: Buffer) => {
    output = (output + b.toString()).slice(-4000);
  });
  child.stderr?.on('data', (b: Buffer) => {
    output = (output + b.toString()).slice(-4000);
  });
  const exited = () => child.exitCode !== null;
  await waitFor(async () => exited() || (await answersPing(port)), {
    what: `redis-server to answer PING on port ${port}`,
    deadlineMs: 10_000,
    every: 50,
  }).catch((err: Error) => {
    child.kill('SIGKILL');
    throw new Error(`${err.message}:\n${output}`);
  });
  if (exited()) throw new Error(`redis-server exited with ${child.exitCode}:\n${output}`);
  return child;
}

/** True once the server answers PING with PONG (not LOADING: an AOF is read before serving). */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    socket.setTimeout(500, () => socket.destroy());
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (b) => {
      reply += b.toString();
      if (reply.includes('\r\n')) {
        socket.end();
        resolve(reply.startsWith('+PONG'));
      }
    });
    socket.on('error', () => resolve(false));
    socket.on('close', () => resolve(reply.startsWith('+PONG')));
  });
}
