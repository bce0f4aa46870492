import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runCli, startCli, tempDir } from '../helpers/cli.js';

/**
 * Deployment artefacts: the systemd unit, the Dockerfile, docker-compose.yml and the configs
 * they mount. There is no container engine here, so nothing is built or run: each file is
 * checked by the tool that owns its format (systemd-analyze, docker-compose, amtool, crawld's
 * check-config) and by the invariants the docs promise. A missing tool fails the test: a
 * skipped check would read as a passing one.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const path = (rel: string) => join(ROOT, rel);
const read = (rel: string) => readFileSync(path(rel), 'utf8');

/** Where each tool comes from, for the failure message. */
const TOOLS: Record<string, string> = {
  'systemd-analyze': 'Debian package systemd',
  'docker-compose': 'Debian package docker-compose (1.29+)',
  amtool: 'Debian package prometheus-alertmanager',
};

/** Runs a tool; throws a clear error if it is not installed (never skips). */
function tool(name: string, args: string[], cwd = ROOT) {
  const r = spawnSync(name, args, { cwd, encoding: 'utf8', timeout: 60_000 });
  if ((r.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
    throw new Error(
      `${name} is not installed or not on PATH: install it (${TOOLS[name] ?? name}) to run this test`,
    );
  }
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A token for configs that read CRAWLD_ADMIN_TOKEN (the unit's EnvironmentFile / compose env). */
const TOKEN_ENV = { CRAWLD_ADMIN_TOKEN: 'test-token-0123456789abcdef' };

describe('systemd unit deploy/crawld.service', () => {
  const unit = read('deploy/crawld.service');

  it('passes systemd-analyze verify without a single warning', () => {
    // verify checks that ExecStart's binary exists and is executable. The unit names
    // /usr/bin/node (Debian/NodeSource packages); on a machine whose node lives elsewhere
    // (nvm, /usr/local) that alone would fail, so a temporary copy points ExecStart at the node
    // running this test. Nothing else is changed. The script argument is not checked by verify.
    expect(unit).toMatch(/^ExecStart=\/usr\/bin\/node \/opt\/crawld\/dist\/crawld\.mjs run --config /m);
    const dir = tempDir('crawld-unit-');
    const copy = join(dir, 'crawld.service');
    writeFileSync(copy, unit.replace(/^ExecStart=\/usr\/bin\/node /m, `ExecStart=${process.execPath} `));
    const r = tool('systemd-analyze', ['verify', copy]);
    // verify exits 0 on unknown keys and bad values, only printing them: any output is a failure.
    const output = `${r.stdout}${r.stderr}`.trim();
    expect(output, `systemd-analyze verify printed:\n${output}`).toBe('');
    expect(r.code).toBe(0);
  });

  it('drains on SIGTERM within TimeoutStopSec and does not restart on an invalid config', () => {
    const directive = (key: string) => unit.match(new RegExp(`^${key}=(.*)$`, 'm'))?.[1]?.trim();
    expect(directive('Type')).toBe('simple');
    expect(directive('Restart')).toBe('on-failure');
    expect(directive('KillSignal')).toBe('SIGTERM');
    expect(directive('RestartPreventExitStatus')?.split(/\s+/)).toContain('2');
    expect(directive('StateDirectory')).toBe('crawld');
    expect(directive('NoNewPrivileges')).toBe('yes');
    expect(directive('ProtectSystem')).toBe('strict');
    // V8's JIT needs W+X pages: this directive would crash node at start.
    expect(unit).not.toMatch(/^MemoryDenyWriteExecute=yes/m);

    const stopSec = Number.parseInt(directive('TimeoutStopSec') ?? '', 10);
    const config = parseYaml(read('deploy/crawld.yaml')) as {
      dataDir: string;
      shutdown?: { drainTimeoutMs?: number };
    };
    const drainMs = config.shutdown?.drainTimeoutMs ?? 10_000;
    expect(
      stopSec * 1000,
      'TimeoutStopSec must leave room for shutdown.drainTimeoutMs',
    ).toBeGreaterThanOrEqual(drainMs * 2);
    expect(config.dataDir).toBe('/var/lib/crawld');
  });
});

describe('example configs pass crawld check-config', () => {
  for (const file of [
    'deploy/crawld.yaml',
    'deploy/compose/crawld.yaml',
    'deploy/compose/crawld-cluster.yaml',
    'deploy/compose/crawld-redis-cluster.yaml',
  ]) {
    it(file, async () => {
      const r = await runCli(['check-config', path(file)], TOKEN_ENV);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/: ok \(\d+ jobs?\)/);
    });
  }

  it('the compose config listens beyond the container loopback and may reach the demo container', () => {
    const c = parseYaml(read('deploy/compose/crawld.yaml')) as {
      dataDir: string;
      http: { host: string; port: number };
      fetch: { allowPrivateNetworks: boolean };
    };
    expect(c.http).toMatchObject({ host: '0.0.0.0', port: 9464 });
    expect(c.fetch.allowPrivateNetworks).toBe(true);
    expect(c.dataDir).toBe('/data');
  });
});

describe('Dockerfile', () => {
  const text = read('Dockerfile');
  const instructions = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const all = (name: string) =>
    instructions
      .filter((l) => l.toUpperCase().startsWith(`${name} `))
      .map((l) => l.slice(name.length + 1).trim());

  it('builds on node 22 or 24 images', () => {
    const froms = all('FROM');
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const f of froms) expect(f).toMatch(/^node:(22|24)[-.\w]*( AS \w+)?$/i);
  });

  it('runs as a non-root user', () => {
    const user = all('USER').at(-1);
    expect(user, 'the final stage must set USER').toBeDefined();
    expect(user).not.toMatch(/^(root|0)(:|$)/);
  });

  it('has a healthcheck, stops with SIGTERM and exposes the metrics port', () => {
    expect(all('HEALTHCHECK').at(-1)).toMatch(/\/healthz/);
    expect(all('STOPSIGNAL').at(-1)).toBe('SIGTERM');
    expect(all('EXPOSE').join(' ')).toMatch(/\b9464\b/);
    expect(all('ENTRYPOINT').at(-1)).toBe('["node", "/app/dist/crawld.mjs"]');
  });

  it('has a .dockerignore keeping node_modules, dist and .git out of the context', () => {
    const ignore = read('.dockerignore').split('\n');
    for (const p of ['node_modules', 'dist', '.git']) expect(ignore).toContain(p);
  });
});

describe('docker-compose.yml', () => {
  it('passes docker-compose config', () => {
    const r = tool('docker-compose', ['-f', 'docker-compose.yml', 'config', '-q']);
    expect(r.stderr.trim(), r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('passes docker-compose config with the cluster profile', () => {
    const r = tool('docker-compose', [
      '-f',
      'docker-compose.yml',
      '--profile',
      'cluster',
      'config',
      '--services',
    ]);
    expect(r.stderr.trim(), r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toEqual(expect.arrayContaining(['redis', 'crawld-worker']));
  });

  it('passes docker-compose config with the redis-cluster profile', () => {
    const r = tool('docker-compose', [
      '-f',
      'docker-compose.yml',
      '--profile',
      'redis-cluster',
      'config',
      '-q',
    ]);
    expect(r.stderr.trim(), r.stderr).toBe('');
    expect(r.code).toBe(0);
    const compose = parseYaml(read('docker-compose.yml'), { merge: true }) as {
      services: Record<string, { profiles?: string[] }>;
    };
    const inProfile = Object.entries(compose.services)
      .filter(([, s]) => s.profiles?.includes('redis-cluster'))
      .map(([name]) => name);
    expect(inProfile).toEqual([
      'redis-node-1',
      'redis-node-2',
      'redis-node-3',
      'redis-cluster-init',
      'crawld-cluster-worker',
    ]);
  });

  it('mounts only files and directories that exist in the repository', () => {
    interface Service {
      build?: string | { context?: string };
      volumes?: (string | { type?: string; source?: string })[];
    }
    const compose = parseYaml(read('docker-compose.yml'), { merge: true }) as {
      services: Record<string, Service>;
    };
    const expected = ['crawld', 'demo', 'prometheus', 'alertmanager', 'grafana', 'redis', 'crawld-worker'];
    expect(Object.keys(compose.services)).toEqual(expect.arrayContaining(expected));

    const sources: string[] = [];
    for (const [name, svc] of Object.entries(compose.services)) {
      for (const v of svc.volumes ?? []) {
        const src = typeof v === 'string' ? v.split(':')[0] : v.type === 'bind' ? v.source : undefined;
        // Named volumes have no path; bind mounts start with . or /.
        if (src && (src.startsWith('.') || isAbsolute(src))) sources.push(`${name}: ${src}`);
      }
      const ctx = typeof svc.build === 'string' ? svc.build : svc.build?.context;
      if (ctx !== undefined) sources.push(`${name}: ${join(ctx, 'Dockerfile')}`);
    }
    // The files the other pieces of the stack rely on are among them.
    for (const p of [
      './deploy/compose/crawld.yaml',
      './deploy/alertmanager/alertmanager.yml',
      './prometheus/prometheus.yml',
      './prometheus/alerts.yml',
      './grafana/provisioning',
      './grafana/dashboards',
    ]) {
      expect(
        sources.some((s) => s.endsWith(`: ${p}`)),
        `${p} is mounted`,
      ).toBe(true);
    }
    const missing = sources.filter((s) => !existsSync(resolve(ROOT, s.slice(s.indexOf(': ') + 2))));
    expect(missing, `mounted paths missing from the repository:\n${missing.join('\n')}`).toEqual([]);
    // Grafana reads these two through the mounted provisioning directory.
    for (const p of [
      'grafana/provisioning/datasources/prometheus.yml',
      'grafana/provisioning/dashboards/crawld.yml',
    ]) {
      expect(existsSync(path(p)), `${p} missing`).toBe(true);
    }
  });
});

describe('the compose demo service', () => {
  it('runs a command line the CLI accepts (served on 127.0.0.1 and a free port here)', async () => {
    const compose = parseYaml(read('docker-compose.yml'), { merge: true }) as {
      services: Record<string, { command?: string[] }>;
    };
    const command = compose.services['demo']?.command;
    expect(command?.slice(0, 1)).toEqual(['site']);
    // Inside the container the site must listen on 0.0.0.0, or crawld cannot reach it.
    expect(command?.join(' ')).toContain('--host 0.0.0.0');
    // Same flags, but this test listens on loopback and an ephemeral port only.
    const args = (command ?? []).map((a, i, all) =>
      all[i - 1] === '--host' ? '127.0.0.1' : all[i - 1] === '--port' ? '0' : a,
    );
    const site = startCli(args);
    try {
      const exitedEarly = site.exited.then((code) => {
        throw new Error(`crawld ${args.join(' ')} exited ${code} before serving:\n${site.stderr()}`);
      });
      const [, url] = await Promise.race([
        site.waitFor(/demo site: (http:\/\/127\.0\.0\.1:\d+)/),
        exitedEarly,
      ]);
      exitedEarly.catch(() => {});
      const res = await fetch(`${url}/`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    } finally {
      site.child.kill('SIGTERM');
    }
    expect(await site.exited, site.stderr()).toBe(0);
  });
});

describe('Alertmanager config', () => {
  it('passes amtool check-config', () => {
    const file = path('deploy/alertmanager/alertmanager.yml');
    expect(existsSync(file)).toBe(true);
    const r = tool('amtool', ['check-config', file]);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toContain('SUCCESS');
  });
});
