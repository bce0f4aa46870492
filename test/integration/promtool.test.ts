import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliProcess, startCli, tempDir } from '../helpers/cli.js';
import { LISTENING, requireBinary, run, withoutForeignLintIssues } from '../helpers/prom-tools.js';
import { ROOT } from '../helpers/promql.js';
import { waitFor } from '../helpers/wait.js';

/**
 * The bundled Prometheus configuration, checked by the real promtool: config and rules
 * syntax, the alert unit tests (prometheus/alerts.test.yml), and the exposition format and
 * naming of the metrics a real daemon serves.
 */

const ok = (r: ReturnType<typeof run>) => `exit ${r.status}\n${r.stdout}\n${r.stderr}`;

describe('promtool', () => {
  beforeAll(() => requireBinary('promtool'));

  it('accepts prometheus/prometheus.yml (and the rule file it names)', () => {
    // Run from the repository root: promtool resolves rule_files relative to the config file.
    const r = run('promtool', ['check', 'config', 'prometheus/prometheus.yml'], ROOT);
    expect(r.status, ok(r)).toBe(0);
    expect(r.stdout).toMatch(/SUCCESS: 1 rule files found/);
  });

  it('accepts prometheus/alerts.yml', () => {
    const r = run('promtool', ['check', 'rules', 'prometheus/alerts.yml'], ROOT);
    expect(r.status, ok(r)).toBe(0);
  });

  it('passes the alert unit tests in prometheus/alerts.test.yml', () => {
    const r = run('promtool', ['test', 'rules', 'prometheus/alerts.test.yml'], ROOT);
    expect(r.status, ok(r)).toBe(0);
    expect(r.stdout).toMatch(/SUCCESS/);
  });
});

describe('promtool check metrics on a running daemon', () => {
  let daemon: CliProcess | undefined;
  let dataDir = '';
  let url = '';

  beforeAll(async () => {
    requireBinary('promtool');
    dataDir = tempDir('crawld-promtool-');
    daemon = startCli([
      'demo',
      '--pages',
      '200',
      '--site-port',
      '0',
      '--http-port',
      '0',
      '--error-rate',
      '0.1',
      '--data-dir',
      dataDir,
      '--log-level',
      'info',
      '--no-progress',
    ]);
    url = (await daemon.waitFor(LISTENING))[1] ?? '';
  });

  afterAll(async () => {
    if (daemon && daemon.child.exitCode === null) {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('finds no problem in the exposition', async () => {
    // Labelled counters only appear once incremented: wait for pages so that they are linted too.
    const body = await waitFor(
      async () => {
        const text = await (await fetch(`${url}/metrics`)).text();
        return /^crawld_pages_total\{/m.test(text) && text;
      },
      { what: 'a crawld_pages_total sample in /metrics', every: 100 },
    );
    const r = run('promtool', ['check', 'metrics'], ROOT, withoutForeignLintIssues(body));
    expect(r.status, ok(r)).toBe(0);
  });
});
