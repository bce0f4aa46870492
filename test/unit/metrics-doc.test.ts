import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as known from '../../src/observe/label-values.js';
import { testMetrics } from '../helpers/metric-registry.js';
import { ROOT } from '../helpers/promql.js';

const doc = readFileSync(resolve(ROOT, 'docs/metrics.md'), 'utf8');

const registry = () => testMetrics({ jobs: ['shop'], sinks: ['jsonl', 'postgres'] }).registry;

describe('docs/metrics.md', () => {
  it('has a table row for every crawld_ metric of the registry', async () => {
    const names = (await registry().getMetricsAsJSON())
      .map((m) => m.name)
      .filter((n) => n.startsWith('crawld_'));
    expect(names.length).toBeGreaterThan(30);
    for (const n of names) expect(doc, n).toContain(`| \`${n}\``);
  });

  it('lists every label value initialised in src/observe/label-values.ts', () => {
    const values = (Object.values(known) as unknown[]).filter(Array.isArray).flat() as string[];
    expect(values.length).toBeGreaterThan(50);
    for (const v of values) expect(doc, v).toContain(`\`${v}\``);
  });

  it('exports each known value at 0 before any event', async () => {
    const text = await registry().metrics();
    for (const r of known.DEAD_LETTER_REASONS)
      expect(text).toContain(`crawld_dead_letters_total{reason="${r}"} 0`);
    for (const r of known.FETCH_ERROR_REASONS)
      expect(text).toContain(`crawld_fetch_errors_total{host="other",reason="${r}"} 0`);
    expect(text).toContain('crawld_sink_batches_total{sink="postgres"} 0');
    expect(text).not.toContain('crawld_sink_batches_total{sink="jsonl"}');
    expect(text).toContain('crawld_pages_total{crawl_job="shop",result="skipped"} 0');
  });
});
