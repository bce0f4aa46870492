import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EVENT_LOOP_LAG_THRESHOLD } from '../../src/dashboards/overview.js';
import { FAILURE_RATE_THRESHOLD } from '../../src/dashboards/panel-kit.js';
import { knownSeriesNames } from '../helpers/metric-registry.js';
import { loadAlertRules, loadRecordingRules, metricNames, ROOT } from '../helpers/promql.js';

/**
 * Static checks of prometheus/alerts.yml that promtool cannot make: every alert reads
 * metrics crawld exposes, links to an existing runbook section, and uses the thresholds the
 * dashboards draw. (promtool itself runs in test/integration/promtool.test.ts.)
 */

const rules = loadAlertRules();
const runbook = readFileSync(resolve(ROOT, 'docs/runbook.md'), 'utf8');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const m of markdown.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    out.add(
      (m[1] ?? '')
        .trim()
        .toLowerCase()
        .replace(/[^\w\s-]/g, '')
        .replace(/\s/g, '-'),
    );
  }
  return out;
}

let known: Set<string>;
beforeAll(async () => {
  known = await knownSeriesNames();
});

describe('prometheus/alerts.yml', () => {
  it('has the alerts the runbook documents', () => {
    expect(rules.map((r) => r.alert).sort()).toEqual(
      [
        'CrawldBreakerOpen',
        'CrawldDeadLetterGrowing',
        'CrawldDown',
        'CrawldErrorBudgetBurnFast',
        'CrawldErrorBudgetBurnSlow',
        'CrawldEventLoopLag',
        'CrawldFrontierStalled',
        'CrawldHighFailureRate',
      ].sort(),
    );
  });

  it('gives every alert a severity, a summary, a description and a runbook section that exists', () => {
    const sections = anchors(runbook);
    for (const r of rules) {
      expect(['critical', 'warning', 'info'], r.alert).toContain(r.labels?.severity);
      expect(r.annotations?.summary, r.alert).toBeTruthy();
      expect(r.annotations?.description, r.alert).toBeTruthy();
      const url = r.annotations?.runbook_url ?? '';
      // The base is the external label crawld_docs_url, else the relative docs/ (see alerts.yml).
      const base = '{{ with $externalLabels.crawld_docs_url }}{{ . }}{{ else }}docs{{ end }}';
      expect(url.startsWith(`${base}/runbook.md#`), `${r.alert}: ${url}`).toBe(true);
      expect(url.slice(base.length), r.alert).toMatch(/^\/runbook\.md#[a-z0-9-]+$/);
      expect(sections.has(url.split('#')[1] ?? ''), `${r.alert}: no section for ${url}`).toBe(true);
    }
  });

  it('only reads metrics that the daemon registry, Prometheus or a recording rule provides', () => {
    const recorded = new Set(loadRecordingRules().map((r) => r.record));
    for (const r of [...rules.map((a) => ({ name: a.alert, expr: a.expr })), ...loadRecordingRules()]) {
      const name = 'name' in r ? r.name : r.record;
      const names = metricNames(r.expr);
      if (r.expr.startsWith('vector(')) continue; // the objective: a constant
      expect(names.length, name).toBeGreaterThan(0);
      for (const n of names)
        expect(known.has(n) || recorded.has(n), `${name}: unknown metric ${n}`).toBe(true);
    }
  });

  it('records the page failure ratio over the four burn-rate windows, by job and instance', () => {
    const byName = new Map(loadRecordingRules().map((r) => [r.record, r.expr]));
    for (const w of ['5m', '30m', '1h', '6h']) {
      const expr = byName.get(`crawld:page_failure_ratio:rate${w}`) ?? '';
      expect(expr, w).toContain(`rate(crawld_pages_total{result="failed"}[${w}])`);
      expect(expr, w).toContain(`rate(crawld_pages_total[${w}])`);
    }
    expect(byName.get('crawld:page_success_objective:ratio')).toBe('vector(0.99)');
  });

  it('uses the thresholds the overview dashboard draws', () => {
    const byName = new Map(rules.map((r) => [r.alert, r]));
    expect(byName.get('CrawldHighFailureRate')?.expr).toMatch(
      new RegExp(`\\)\\s*>\\s*${FAILURE_RATE_THRESHOLD}\\s`),
    );
    expect(byName.get('CrawldEventLoopLag')?.expr).toMatch(new RegExp(`>\\s*${EVENT_LOOP_LAG_THRESHOLD}$`));
  });
});
