import * as common from '@grafana/grafana-foundation-sdk/common';
import * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import * as prometheus from '@grafana/grafana-foundation-sdk/prometheus';
import * as stat from '@grafana/grafana-foundation-sdk/stat';
import * as timeseries from '@grafana/grafana-foundation-sdk/timeseries';

/**
 * Building blocks shared by the crawld dashboards. Dashboards are code so that a renamed
 * metric or a missing refId is a compile or test failure, not a blank panel found during an
 * incident; grafana/dashboards/*.json is generated from here (scripts/build-dashboards.mjs).
 */

/** The provisioned datasource (grafana/provisioning/datasources/prometheus.yml). */
export const DATASOURCE: common.DataSourceRef = { type: 'prometheus', uid: 'prometheus' };

/**
 * Failure ratio above which CrawldHighFailureRate fires (prometheus/alerts.yml). The overview
 * draws it as a threshold line; test/unit/dashboards.test.ts checks both stay equal.
 */
export const FAILURE_RATE_THRESHOLD = 0.2;

/** Label matchers every crawld query carries, so the job/instance variables filter it. */
export const SEL = 'job=~"$job", instance=~"$instance"';

/** A multi-select variable whose values `query` lists, "All" selected. */
export function multiVariable(name: string, label: string, query: string): dashboard.QueryVariableBuilder {
  return (
    new dashboard.QueryVariableBuilder(name)
      .label(label)
      .datasource(DATASOURCE)
      .query(query)
      .definition(query)
      .refresh(dashboard.VariableRefresh.OnTimeRangeChanged)
      .sort(dashboard.VariableSort.AlphabeticalAsc)
      .multi(true)
      .includeAll(true)
      // A regex rather than Grafana's joined list: "All" then also covers values that
      // appear after the variable was last refreshed.
      .allValue('.*')
      .current({ text: ['All'], value: ['$__all'], selected: true })
  );
}

/** Prometheus `job` (the scrape job, not the crawl job) and `instance`, both multi-select. */
export function scopeVariables(): dashboard.QueryVariableBuilder[] {
  return [
    multiVariable('job', 'Prometheus job', 'label_values(crawld_build_info, job)'),
    multiVariable('instance', 'Instance', 'label_values(crawld_build_info{job=~"$job"}, instance)'),
  ];
}

/** One Prometheus query. The refId is explicit: Grafana needs it to tell targets apart. */
export function query(refId: string, expr: string, legend: string): prometheus.DataqueryBuilder {
  return new prometheus.DataqueryBuilder()
    .datasource(DATASOURCE)
    .refId(refId)
    .expr(expr)
    .legendFormat(legend)
    .range();
}

function legend(): common.VizLegendOptionsBuilder {
  return new common.VizLegendOptionsBuilder()
    .showLegend(true)
    .displayMode(common.LegendDisplayMode.List)
    .placement(common.LegendPlacement.Bottom);
}

/** A time series panel with its legend shown (series without a legend are unreadable). */
export function graph(
  title: string,
  description: string,
  unit: string,
  targets: prometheus.DataqueryBuilder[],
): timeseries.PanelBuilder {
  return new timeseries.PanelBuilder()
    .title(title)
    .description(description)
    .datasource(DATASOURCE)
    .unit(unit)
    .targets(targets)
    .legend(legend())
    .tooltip(new common.VizTooltipOptionsBuilder().mode(common.TooltipDisplayMode.Multi))
    .lineWidth(1)
    .fillOpacity(10)
    .height(8)
    .span(12);
}

/** A single number (with its legend text as the label) for the top row. */
export function single(
  title: string,
  description: string,
  unit: string,
  target: prometheus.DataqueryBuilder,
) {
  return new stat.PanelBuilder()
    .title(title)
    .description(description)
    .datasource(DATASOURCE)
    .unit(unit)
    .withTarget(target)
    .reduceOptions(new common.ReduceDataOptionsBuilder().calcs(['lastNotNull']))
    .graphMode(common.BigValueGraphMode.Area)
    .height(4)
    .span(6);
}

/** Green below `value`, red from it; used for the alert threshold line. */
export function redFrom(value: number): dashboard.ThresholdsConfigBuilder {
  return new dashboard.ThresholdsConfigBuilder().mode(dashboard.ThresholdsMode.Absolute).steps([
    { value: null, color: 'green' },
    { value, color: 'red' },
  ]);
}

/**
 * Gives every panel (rows included) a stable id, in order. The builder leaves ids unset and
 * Grafana would invent them on load, which makes links to a panel (viewPanel=N) unstable.
 */
export function numberPanels(d: dashboard.Dashboard): dashboard.Dashboard {
  let id = 1;
  for (const p of d.panels ?? []) {
    p.id = id++;
    if ('panels' in p) for (const inner of p.panels ?? []) inner.id = id++;
  }
  return d;
}

export function baseDashboard(uid: string, title: string, description: string): dashboard.DashboardBuilder {
  return new dashboard.DashboardBuilder(title)
    .uid(uid)
    .description(description)
    .tags(['crawld'])
    .editable()
    .tooltip(dashboard.DashboardCursorSync.Crosshair)
    .time({ from: 'now-1h', to: 'now' })
    .refresh('30s')
    .timezone('browser');
}

/** crawld_breaker_state encodes the state as a number; show its name instead. */
export const BREAKER_STATES: dashboard.ValueMapping[] = [
  {
    type: dashboard.MappingType.ValueToText,
    options: {
      '0': { text: 'closed', color: 'green', index: 0 },
      '1': { text: 'half-open', color: 'orange', index: 1 },
      '2': { text: 'open', color: 'red', index: 2 },
    },
  },
];

/** Per-second rate over Grafana's scrape-aware window. */
export function rate(selector: string): string {
  return `rate(${selector}[$__rate_interval])`;
}
