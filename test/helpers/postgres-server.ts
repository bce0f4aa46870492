/**
 * Starts a throwaway PostgreSQL server on 127.0.0.1 for a test file: initdb into a temporary
 * directory, postgres on a free port with its unix socket in that directory, one database.
 * No system service is involved. A missing binary is a failure, never a skip: a green run
 * must mean the PostgreSQL sink ran against real PostgreSQL.
 *
 * postgres refuses to run as root, so as root every server command runs as the Debian
 * package's `postgres` user through runuser (the temporary directory is chowned to it).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { started } from './cleanup.js';
import { freePort } from './cli.js';
import { waitFor } from './wait.js';

export interface PostgresServer {
  /** postgres://postgres@127.0.0.1:PORT/DB */
  readonly url: string;
  readonly port: number;
  readonly database: string;
  /** Fast shutdown, then removes the data dir. */
  stop(): Promise<void>;
  /** Stops the server keeping its data (to test an unreachable database). */
  pause(): Promise<void>;
  /** The same server on the same port again. */
  resume(): Promise<void>;
}

const SUPERUSER = 'postgres';

/** A PostgreSQL server for one test file and a client on its database for the tests' queries. */
export interface PostgresFixture {
  readonly server: PostgresServer;
  readonly db: pg.Client;
  /** Connects a new client as `db`, e.g. after the test ended the old one to pause the server. */
  reconnect(): Promise<void>;
}

/**
 * Registers beforeAll/afterAll hooks that start PostgreSQL (60 s: initdb) and connect `db`,
 * and after all tests end `db` and stop the server. Read the fields inside tests or hooks.
 */
export function usePostgres(): PostgresFixture {
  let server: PostgresServer | undefined;
  let db: pg.Client | undefined;
  const fixture: PostgresFixture = {
    get server() {
      return started(server, 'postgres fixture: server not started (used outside a test?)');
    },
    get db() {
      return started(db, 'postgres fixture: client not connected (used outside a test?)');
    },
    async reconnect() {
      db = new pg.Client({ connectionString: fixture.server.url });
      await db.connect();
    },
  };
  beforeAll(async () => {
    server = await startPostgres();
    await fixture.reconnect();
  }, 60_000);
  afterAll(async () => {
    await db?.end();
    await server?.stop();
  });
  return fixture;
}

/** The newest installed server's bin directory (Debian: /usr/lib/postgresql/N/bin). */
export function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const v = versions[0];
  if (v === undefined) {
    throw new Error(
      `${root}/*/bin/initdb not found: run scripts/setup-test-env.sh, which installs the Debian package postgresql`,
    );
  }
  return join(root, v, 'bin');
}

const asRoot = process.getuid?.() === 0;

/** argv that runs `bin args` as the postgres OS user when we are root. */
function asServerUser(bin: string, args: string[]): [string, string[]] {
  return asRoot ? ['runuser', ['-u', SUPERUSER, '--', bin, ...args]] : [bin, args];
}

export async function startPostgres(database = 'crawld_test'): Promise<PostgresServer> {
  const bin = postgresBinDir();
  const dir = mkdtempSync(join(tmpdir(), 'crawld-pg-'));
  const data = join(dir, 'data');
  if (asRoot) {
    const info = spawnSync('id', ['-u', SUPERUSER], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', SUPERUSER], { encoding: 'utf8' });
    if (info.status !== 0)
      throw new Error(`running as root needs the OS user ${SUPERUSER} (Debian postgresql)`);
    chownSync(dir, Number(info.stdout.trim()), Number(gid.stdout.trim()));
    chmodSync(dir, 0o700);
  }
  const [initCmd, initArgs] = asServerUser(join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    SUPERUSER,
    '-A',
    'trust',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  const init = spawnSync(initCmd, initArgs, { encoding: 'utf8' });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (${init.status}):\n${init.stdout}\n${init.stderr}`);
  }
  const port = await freePort();
  const args = [
    '-D',
    data,
    '-p',
    String(port),
    '-h',
    '127.0.0.1',
    '-k',
    dir,
    '-c',
    'fsync=off',
    '-c',
    'synchronous_commit=off',
    '-c',
    'full_page_writes=off',
  ];
  let child = await launch(join(bin, 'postgres'), args, port);
  const [createCmd, createArgs] = asServerUser(join(bin, 'createdb'), [
    '-h',
    dir,
    '-p',
    String(port),
    '-U',
    SUPERUSER,
    database,
  ]);
  const created = spawnSync(createCmd, createArgs, { encoding: 'utf8' });
  if (created.status !== 0) {
    await halt(child, data);
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`createdb failed (${created.status}):\n${created.stderr}`);
  }
  return {
    url: `postgres://${SUPERUSER}@127.0.0.1:${port}/${database}`,
    port,
    database,
    stop: async () => {
      await halt(child, data);
      rmSync(dir, { recursive: true, force: true });
    },
    pause: () => halt(child, data),
    resume: async () => {
      child = await launch(join(bin, 'postgres'), args, port);
    },
  };
}

async function halt(proc: ChildProcess, data: string): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  // SIGINT to the postmaster itself (runuser does not forward it) is postgres' fast
  // shutdown: open sessions are ended, the data stays consistent.
  const pidFile = join(data, 'postmaster.pid');
  const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').split('\n', 1)[0]) : Number.NaN;
  if (Number.isInteger(pid) && pid > 0) process.kill(pid, 'SIGINT');
  else proc.kill('SIGINT');
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    proc.kill('SIGKILL');
  }, 10_000);
  await exited;
  clearTimeout(timer);
  // A postmaster killed with SIGKILL leaves its pid file behind (the next start replaces it).
  if (killed) return;
  await waitFor(() => !existsSync(pidFile), {
    what: 'postgres to remove postmaster.pid',
    deadlineMs: 10_000,
  });
}

async function launch(bin: string, args: string[], port: number): Promise<ChildProcess> {
  const [cmd, argv] = asServerUser(bin, args);
  // runuser stays the parent of postgres and exits when it does.
  const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (b: Buffer) => {
    output = (output + b.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = () => child.exitCode !== null;
  await waitFor(
    async () => exited() || (output.includes('ready to accept connections') && (await accepts(port))),
    { what: `postgres to accept connections on port ${port}`, every: 50 },
  ).catch((err: Error) => {
    child.kill('SIGKILL');
    throw new Error(`${err.message}:\n${output}`);
  });
  if (exited()) throw new Error(`postgres exited with ${child.exitCode}:\n${output}`);
  return child;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.setTimeout(500, () => socket.destroy());
    socket.on('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}
