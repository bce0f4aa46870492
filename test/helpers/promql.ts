import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';

/**
 * Helpers shared by the observability tests: the PromQL found in the bundled dashboards and
 * alert rules, and a small lexical reading of it. Not a PromQL parser: enough to name the
 * metrics an expression reads, for the expressions this repository writes.
 */

export const ROOT = resolve(import.meta.dirname, '../..');

export interface PanelTarget {
  readonly dashboard: string;
  readonly panel: string;
  readonly refId: unknown;
  readonly expr: unknown;
}

export interface AlertRule {
  readonly alert: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}

type Json = Record<string, unknown>;

/** Every non-row panel of a dashboard, nested row panels included. */
export function panelsOf(d: Json): Json[] {
  const out: Json[] = [];
  for (const p of (d.panels ?? []) as Json[]) {
    if (p.type === 'row') out.push(...((p.panels ?? []) as Json[]));
    else out.push(p);
  }
  return out;
}

export function targetsOf(d: Json): PanelTarget[] {
  return panelsOf(d).flatMap((p) =>
    ((p.targets ?? []) as Json[]).map((t) => ({
      dashboard: String(d.uid),
      panel: String(p.title),
      refId: t.refId,
      expr: t.expr,
    })),
  );
}

/** The metric of each `label_values(metric{...}, label)` variable query. */
export function variableQueries(d: Json): string[] {
  const list = ((d.templating as Json | undefined)?.list ?? []) as Json[];
  return list.map((v) => String(v.query));
}

export interface RecordingRule {
  readonly record: string;
  readonly expr: string;
}

function loadRules(): (AlertRule | RecordingRule)[] {
  const doc = parse(readFileSync(resolve(ROOT, 'prometheus/alerts.yml'), 'utf8')) as {
    groups: { rules: (AlertRule | RecordingRule)[] }[];
  };
  return doc.groups.flatMap((g) => g.rules);
}

/** The alerting rules of prometheus/alerts.yml. */
export function loadAlertRules(): AlertRule[] {
  return loadRules().filter((r): r is AlertRule => 'alert' in r);
}

/** The recording rules of prometheus/alerts.yml (crawld:…). */
export function loadRecordingRules(): RecordingRule[] {
  return loadRules().filter((r): r is RecordingRule => 'record' in r);
}

const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'inf',
  'nan',
]);

/** The expression with strings, label matchers, ranges and grouping label lists removed. */
function skeleton(expr: string): string {
  return expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
}

/**
 * Metric names an expression reads: identifiers that are not keywords and not followed by
 * `(` (functions and aggregations are). label_values(metric, label) names its metric too.
 */
export function metricNames(expr: string): string[] {
  const names = new Set<string>();
  const s = skeleton(expr.replace(/label_values\(\s*([a-zA-Z_:][\w:]*)[^)]*\)/g, ' $1 '));
  for (const m of s.matchAll(/(?<![\w.$])[a-zA-Z_:][\w:]*/g)) {
    const rest = s.slice(m.index + m[0].length);
    if (/^\s*\(/.test(rest) || KEYWORDS.has(m[0].toLowerCase())) continue;
    names.add(m[0]);
  }
  return [...names];
}

/**
 * The instant-vector selectors of an expression (`name{matchers}`), for checking that the
 * series an alert reads exist even when the alert itself is (rightly) not firing.
 */
export function selectors(expr: string): string[] {
  const names = new Set(metricNames(expr));
  const noGroups = expr.replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const out = new Set<string>();
  for (const m of noGroups.matchAll(/(?<![\w.$"])([a-zA-Z_:][\w:]*)\s*(\{[^}]*\})?/g)) {
    const name = m[1] ?? '';
    if (names.has(name)) out.add(`${name}${m[2] ?? ''}`);
  }
  return [...out];
}

/**
 * Grafana's variables with the values "All" stands for: the multi-select variables use
 * the regex `.*` (their allValue), and $__rate_interval becomes a fixed window.
 */
export function substituteVariables(expr: string, rateInterval = '1m'): string {
  return expr
    .replace(/\$__rate_interval|\$__interval|\$__range/g, rateInterval)
    .replace(/\$\{?(job|instance|host)\}?/g, '.*');
}

/**
 * The daemon's metric names (not Prometheus' own series or recording rules) that the shipped
 * dashboards and rule files name, read from grafana/dashboards/*.json and prometheus/*.yml.
 */
export function namedMetrics(): string[] {
  // Dashboards: the whole JSON (targets and variables). Rules: the expressions only, so that
  // names in comments or annotation templates (e.g. $externalLabels.crawld_docs_url) do not count.
  const texts = [
    ...readdirSync(join(ROOT, 'grafana/dashboards')).map((f) =>
      readFileSync(join(ROOT, 'grafana/dashboards', f), 'utf8'),
    ),
    ...loadRules().map((r) => r.expr),
  ];
  const names = new Set<string>();
  for (const text of texts) {
    for (const m of text.matchAll(/(?<![\w:])(?:crawld|nodejs|process)_[a-z0-9_]+(?![\w:])/g))
      names.add(m[0]);
  }
  return [...names].sort();
}
