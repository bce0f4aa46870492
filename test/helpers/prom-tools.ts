import { type SpawnSyncReturns, spawnSync } from 'node:child_process';

/**
 * The Prometheus binaries the observability tests run. A missing binary is a failure, never
 * a skip: a green run must mean the configuration was checked by the real tools.
 */
export function requireBinary(name: 'prometheus' | 'promtool'): void {
  const r = spawnSync(name, ['--version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) {
    throw new Error(
      `${name} is not installed (${r.error?.message ?? `exit ${r.status}`}): ` +
        'run scripts/setup-test-env.sh, which installs the Debian package prometheus',
    );
  }
}

export function run(cmd: string, args: string[], cwd: string, input?: string): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd, input, encoding: 'utf8', timeout: 20_000 });
}

/**
 * Drops the metric families promtool's linter rejects although they are not crawld's: the
 * prom-client default gauges nodejs_active_{handles,requests,resources}_total ("non-counter
 * metrics should not have _total suffix"), which would make `promtool check metrics` exit 3.
 */
export function withoutForeignLintIssues(exposition: string): string {
  const foreign = /^(?:# (?:HELP|TYPE) )?nodejs_active_\w+_total[\s{]/;
  return exposition
    .split('\n')
    .filter((l) => !foreign.test(l))
    .join('\n');
}

/** The daemon's "http server listening" log line carries the URL it bound (port 0 in tests). */
export const LISTENING = /http server listening[^\n]*?"url":"(http:\/\/127\.0\.0\.1:\d+)"/;
