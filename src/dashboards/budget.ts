import * as common from '@grafana/grafana-foundation-sdk/common';
import * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import { graph, query, rate, SEL, single } from './panel-kit.js';

/**
 * The error-budget and per-job rows of the overview. The burn rates read the recording rules
 * of prometheus/alerts.yml (crawld:page_failure_ratio:rate*, crawld:page_success_objective:ratio),
 * so they need that rule file loaded in Prometheus.
 */

/** Burn rates at which CrawldErrorBudgetBurnFast / …Slow fire (prometheus/alerts.yml). */
export const FAST_BURN = 14.4;
export const SLOW_BURN = 6;

const BUDGET = '(1 - scalar(crawld:page_success_objective:ratio))';
const WINDOWS = ['5m', '30m', '1h', '6h'] as const;

function burnLines(): dashboard.ThresholdsConfigBuilder {
  return new dashboard.ThresholdsConfigBuilder().mode(dashboard.ThresholdsMode.Absolute).steps([
    { value: null, color: 'green' },
    { value: SLOW_BURN, color: 'orange' },
    { value: FAST_BURN, color: 'red' },
  ]);
}

export function errorBudgetRow(d: dashboard.DashboardBuilder): void {
  const pages = (extra = '') => `crawld_pages_total{${SEL}${extra}}`;
  const failed30d = `sum(increase(${pages(', result="failed"')}[30d]))`;
  const all30d = `sum(increase(${pages()}[30d]))`;
  d.withRow(new dashboard.RowBuilder('Error budget'))
    .withPanel(
      graph(
        'Error budget burn rate',
        `Page failure ratio over each window divided by the budget (1 - objective). 1 spends the budget in exactly 30 days; the orange and red lines are the ticket (${SLOW_BURN}x over 6h and 30m) and page (${FAST_BURN}x over 1h and 5m) thresholds.`,
        'short',
        WINDOWS.map((w, i) =>
          query(
            String.fromCharCode(65 + i),
            `max by (instance) (crawld:page_failure_ratio:rate${w}{${SEL}}) / ${BUDGET}`,
            `{{instance}} ${w}`,
          ),
        ),
      )
        .thresholds(burnLines())
        .thresholdsStyle(
          new common.GraphThresholdsStyleConfigBuilder().mode(common.GraphThresholdsStyleMode.Line),
        )
        .min(0),
    )
    .withPanel(
      single(
        'Error budget left (30 days)',
        'Share of the 30-day budget of failed pages not yet spent: 1 - (failed / all pages over 30 days) / (1 - objective). Negative once the objective is missed.',
        'percentunit',
        query('A', `1 - (${failed30d} / ${all30d}) / ${BUDGET}`, 'left'),
      ),
    )
    .withPanel(
      single(
        'Objective',
        'Share of pages that should end ok (crawld:page_success_objective:ratio in prometheus/alerts.yml).',
        'percentunit',
        query(
          'A',
          `crawld:page_success_objective:ratio + 0 * scalar(count(crawld_build_info{${SEL}}))`,
          'objective',
        ),
      ),
    );
}

/** Pages, failures and latency by crawl job (the config's job ids; bounded by the config). */
export function jobsRow(d: dashboard.DashboardBuilder): void {
  const pages = (extra = '') => `crawld_pages_total{${SEL}${extra}}`;
  d.withRow(new dashboard.RowBuilder('Jobs'))
    .withPanel(
      graph('Pages/s by job', 'Tasks that ended per crawl job and result.', 'reqps', [
        query('A', `sum by (crawl_job, result) (${rate(pages())})`, '{{crawl_job}} {{result}}'),
      ]),
    )
    .withPanel(
      graph(
        'Failure ratio by job',
        'Dead-lettered pages over all ended pages, per crawl job.',
        'percentunit',
        [
          query(
            'A',
            `sum by (crawl_job) (${rate(pages(', result="failed"'))}) / sum by (crawl_job) (${rate(pages())})`,
            '{{crawl_job}}',
          ),
        ],
      ).min(0),
    )
    .withPanel(
      graph('Request duration p90 by job', 'Whole request duration, 90th percentile per crawl job.', 's', [
        query(
          'A',
          `histogram_quantile(0.9, sum by (crawl_job, le) (${rate(`crawld_job_request_duration_seconds_bucket{${SEL}}`)}))`,
          '{{crawl_job}}',
        ),
      ]),
    );
}
