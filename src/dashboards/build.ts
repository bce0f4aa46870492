import type * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import { hostDashboard } from './host.js';
import { overviewDashboard } from './overview.js';

/** Every bundled dashboard by the file name it is provisioned from (grafana/dashboards/). */
export function buildDashboards(): Record<string, dashboard.Dashboard> {
  return {
    'crawld-overview.json': overviewDashboard(),
    'crawld-host.json': hostDashboard(),
  };
}

/**
 * The exact bytes of a dashboard file. One function for the writer
 * (scripts/build-dashboards.mjs) and the drift test, so they cannot disagree on formatting.
 */
export function renderDashboard(d: dashboard.Dashboard): string {
  return `${JSON.stringify(d, null, 2)}\n`;
}
