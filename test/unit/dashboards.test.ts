import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildDashboards, renderDashboard } from '../../src/dashboards/build.js';
import { knownSeriesNames } from '../helpers/metric-registry.js';
import {
  loadRecordingRules,
  metricNames,
  panelsOf,
  ROOT,
  selectors,
  targetsOf,
  variableQueries,
} from '../helpers/promql.js';

/**
 * The dashboards are code (src/dashboards); Grafana provisions the generated JSON. These
 * checks make a malformed or stale dashboard a test failure instead of an empty panel.
 */

type Json = Record<string, unknown>;
const built = buildDashboards();
// Through JSON so the checks see exactly what Grafana reads (no undefined fields, no classes).
const dashboards = Object.entries(built).map(
  ([file, d]) => [file, JSON.parse(renderDashboard(d)) as Json] as const,
);

let known: Set<string>;
beforeAll(async () => {
  known = await knownSeriesNames();
});

describe('bundled Grafana dashboards', () => {
  it('committed JSON files equal what src/dashboards generates', () => {
    for (const [file, d] of Object.entries(built)) {
      const path = resolve(ROOT, 'grafana/dashboards', file);
      const committed = readFileSync(path, 'utf8');
      expect(committed, `${path} is stale: run npm run build && node scripts/build-dashboards.mjs`).toBe(
        renderDashboard(d),
      );
    }
  });

  it('have unique uids and titles', () => {
    const uids = dashboards.map(([, d]) => d.uid);
    expect(new Set(uids).size).toBe(uids.length);
    for (const [, d] of dashboards) {
      expect(typeof d.uid === 'string' && d.uid.length > 0).toBe(true);
      expect(String(d.title)).not.toBe('');
    }
  });

  it('give every panel a unique id and a title, and use the provisioned datasource', () => {
    for (const [file, d] of dashboards) {
      const ids = ((d.panels ?? []) as Json[]).flatMap((p) => [
        p.id,
        ...((p.panels ?? []) as Json[]).map((i) => i.id),
      ]);
      expect(new Set(ids).size, `${file}: duplicate panel ids`).toBe(ids.length);
      for (const p of panelsOf(d)) {
        expect(typeof p.title === 'string' && p.title.length > 0, `${file}: panel ${p.id} has no title`).toBe(
          true,
        );
        expect(p.datasource, `${file}: ${p.title}`).toEqual({ type: 'prometheus', uid: 'prometheus' });
      }
    }
  });

  it('give every target a unique refId, an expr and the provisioned datasource', () => {
    for (const [file, d] of dashboards) {
      for (const p of panelsOf(d)) {
        const targets = (p.targets ?? []) as Json[];
        expect(targets.length, `${file}: ${p.title} has no query`).toBeGreaterThan(0);
        const refIds = targets.map((t) => t.refId);
        expect(new Set(refIds).size, `${file}: ${p.title} repeats a refId`).toBe(refIds.length);
        for (const t of targets) {
          expect(typeof t.refId === 'string' && t.refId.length > 0, `${file}: ${p.title} refId`).toBe(true);
          expect(typeof t.expr === 'string' && t.expr.length > 0, `${file}: ${p.title} expr`).toBe(true);
          expect(t.datasource, `${file}: ${p.title} ${t.refId}`).toEqual({
            type: 'prometheus',
            uid: 'prometheus',
          });
        }
      }
    }
  });

  it('display the legend of every time series panel', () => {
    for (const [file, d] of dashboards) {
      for (const p of panelsOf(d).filter((x) => x.type === 'timeseries')) {
        const legend = (p.options as Json | undefined)?.legend as Json | undefined;
        expect(legend?.showLegend, `${file}: ${p.title}`).toBe(true);
        expect(legend?.displayMode, `${file}: ${p.title}`).not.toBe('hidden');
      }
    }
  });

  it('offer job and instance as multi-select variables with All, and host on the host dashboard', () => {
    for (const [file, d] of dashboards) {
      const vars = ((d.templating as Json).list as Json[]).map((v) => [v.name, v] as const);
      const byName = new Map(vars);
      for (const name of ['job', 'instance', ...(file === 'crawld-host.json' ? ['host'] : [])]) {
        const v = byName.get(name);
        expect(v, `${file}: variable ${name}`).toBeDefined();
        expect([v?.multi, v?.includeAll, v?.allValue], `${file}: ${name}`).toEqual([true, true, '.*']);
      }
    }
  });

  it('filter every query by the job and instance variables', () => {
    for (const t of dashboards.flatMap(([, d]) => targetsOf(d))) {
      expect(String(t.expr), `${t.dashboard}: ${t.panel} ${String(t.refId)}`).toMatch(
        /job=~"\$job", instance=~"\$instance"/,
      );
    }
  });

  it('only read metrics that the daemon registry, Prometheus or a recording rule provides', () => {
    const recorded = new Set(loadRecordingRules().map((r) => r.record));
    const exprs = dashboards.flatMap(([file, d]) => [
      ...targetsOf(d).map((t) => [`${file}: ${t.panel} ${String(t.refId)}`, String(t.expr)] as const),
      ...variableQueries(d).map((q) => [`${file}: variable`, q] as const),
    ]);
    for (const [where, expr] of exprs) {
      const names = metricNames(expr);
      expect(names.length, `${where}: no metric found in ${expr}`).toBeGreaterThan(0);
      for (const name of names)
        expect(known.has(name) || recorded.has(name), `${where}: unknown metric ${name} in ${expr}`).toBe(
          true,
        );
    }
  });
});

describe('metricNames', () => {
  it('finds metrics, not functions, keywords, labels, strings or ranges', () => {
    expect(
      metricNames(
        'histogram_quantile(0.99, sum by (le) (rate(a_bucket{job=~"$job", x="y z"}[$__rate_interval]))) / on (instance) b > 1e3 and c unless d offset 5m',
      ),
    ).toEqual(['a_bucket', 'b', 'c', 'd']);
    expect(metricNames('label_values(crawld_build_info{job=~"$job"}, instance)')).toEqual([
      'crawld_build_info',
    ]);
  });

  it('selectors keeps each selector with its matchers', () => {
    expect(
      selectors(
        'sum by (job, instance) (rate(p{result="failed"}[5m])) / sum by (job) (rate(p[5m])) > 0.2 unless on (instance) q == 1',
      ),
    ).toEqual(['p{result="failed"}', 'p', 'q']);
  });
});
