import * as common from '@grafana/grafana-foundation-sdk/common';
import * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import { errorBudgetRow, jobsRow } from './budget.js';
import {
  BREAKER_STATES,
  baseDashboard,
  FAILURE_RATE_THRESHOLD,
  graph,
  numberPanels,
  query,
  rate,
  redFrom,
  SEL,
  scopeVariables,
  single,
} from './panel-kit.js';

/** Event-loop lag above which CrawldEventLoopLag fires (prometheus/alerts.yml). */
export const EVENT_LOOP_LAG_THRESHOLD = 0.5;

const pages = (extra = '') => `crawld_pages_total{${SEL}${extra}}`;
const failureRatio = (by: string) =>
  `sum by (${by}) (${rate(pages(', result="failed"'))}) / sum by (${by}) (${rate(pages())})`;
const quantile = (q: number) =>
  query(
    `P${Math.round(q * 100)}`,
    `histogram_quantile(${q}, sum by (le) (${rate(`crawld_request_duration_seconds_bucket{${SEL}}`)}))`,
    `p${Math.round(q * 100)}`,
  );

function throughputRow(d: dashboard.DashboardBuilder): void {
  d.withRow(new dashboard.RowBuilder('Throughput'))
    .withPanel(
      single(
        'Pages/s',
        'Pages written to the sinks per second, all selected instances.',
        'reqps',
        query('A', `sum(${rate(pages(', result="ok"'))})`, 'ok'),
      ),
    )
    .withPanel(
      single(
        'Failure ratio',
        'Dead-lettered pages over all ended pages.',
        'percentunit',
        query('A', `sum(${rate(pages(', result="failed"'))}) / sum(${rate(pages())})`, 'failed'),
      ).thresholds(redFrom(FAILURE_RATE_THRESHOLD)),
    )
    .withPanel(
      single(
        'Pending tasks',
        'Tasks waiting in the frontiers.',
        'short',
        query('A', `sum(crawld_frontier_pending{${SEL}})`, 'pending'),
      ),
    )
    .withPanel(
      single(
        'Instances up',
        'Scrape targets of the selected job that answered the last scrape.',
        'short',
        query('A', `sum(up{${SEL}})`, 'up'),
      ),
    )
    .withPanel(
      graph('Pages/s by result', 'Tasks that ended: ok, failed (dead-lettered), skipped.', 'reqps', [
        query('A', `sum by (result) (${rate(pages())})`, '{{result}}'),
      ]),
    )
    .withPanel(
      graph(
        'Failure ratio vs alert threshold',
        `Per instance; the red line is the CrawldHighFailureRate threshold (${FAILURE_RATE_THRESHOLD}).`,
        'percentunit',
        [query('A', failureRatio('instance'), '{{instance}}')],
      )
        .thresholds(redFrom(FAILURE_RATE_THRESHOLD))
        .thresholdsStyle(
          new common.GraphThresholdsStyleConfigBuilder().mode(common.GraphThresholdsStyleMode.Line),
        )
        .min(0),
    );
}

function requestsRow(d: dashboard.DashboardBuilder): void {
  d.withRow(new dashboard.RowBuilder('Requests'))
    .withPanel(
      graph('Requests/s', 'Responses by status class, and requests that got no usable response.', 'reqps', [
        query('A', `sum by (status_class) (${rate(`crawld_requests_total{${SEL}}`)})`, '{{status_class}}'),
        query('B', `sum by (reason) (${rate(`crawld_fetch_errors_total{${SEL}}`)})`, 'error: {{reason}}'),
      ]),
    )
    .withPanel(
      graph('Request latency', 'Whole request duration (redirects and body included), all hosts.', 's', [
        quantile(0.5),
        quantile(0.95),
        quantile(0.99),
      ]),
    )
    .withPanel(
      graph(
        'Concurrency: limit vs in flight',
        'Global ceiling, the sum of the adaptive per-host limits, and requests in flight.',
        'short',
        [
          query('A', `sum(crawld_concurrency_limit{${SEL}})`, 'global limit'),
          query('B', `sum(crawld_host_concurrency_limit{${SEL}})`, 'sum of host limits'),
          query('C', `sum(crawld_inflight_requests{${SEL}})`, 'in flight'),
        ],
      ),
    )
    .withPanel(
      graph(
        'Rate-limit waits and deferrals',
        'Requests held back by a token bucket (rate_limit) or a per-host delay (politeness), and tasks handed back without charging an attempt.',
        'ops',
        [
          query(
            'A',
            `sum by (reason) (${rate(`crawld_rate_limit_waits_total{${SEL}}`)})`,
            'wait: {{reason}}',
          ),
          query('B', `sum by (reason) (${rate(`crawld_deferred_total{${SEL}}`)})`, 'deferred: {{reason}}'),
        ],
      ),
    )
    .withPanel(
      graph(
        'Time held back by rate limits',
        'Seconds of waiting per second (about the number of requests waiting at any time), by cause.',
        's',
        [
          query(
            'A',
            `sum by (reason) (${rate(`crawld_rate_limit_wait_seconds_total{${SEL}}`)})`,
            '{{reason}}',
          ),
        ],
      ),
    )
    .withPanel(
      graph('Retries by reason', 'Attempts that failed and were scheduled again.', 'ops', [
        query('A', `sum by (reason) (${rate(`crawld_retries_total{${SEL}}`)})`, '{{reason}}'),
      ]),
    )
    .withPanel(
      graph('Circuit breakers', 'Worst breaker state per host label: closed, half-open, open.', 'short', [
        query('A', `max by (host) (crawld_breaker_state{${SEL}})`, '{{host}}'),
      ])
        .mappings(BREAKER_STATES)
        .min(0)
        .max(2),
    );
}

function frontierRow(d: dashboard.DashboardBuilder): void {
  d.withRow(new dashboard.RowBuilder('Frontier'))
    .withPanel(
      graph('Frontier', 'Tasks pending (ready and delayed), delayed, leased and dead-lettered.', 'short', [
        query('A', `sum(crawld_frontier_pending{${SEL}})`, 'pending'),
        query('B', `sum(crawld_frontier_delayed{${SEL}})`, 'delayed'),
        query('C', `sum(crawld_frontier_leased{${SEL}})`, 'leased'),
        query('D', `sum(crawld_dead_letter_size{${SEL}})`, 'dead letters'),
      ]),
    )
    .withPanel(
      graph(
        'Dead-letter growth',
        'Tasks dead-lettered per second by reason (CrawldDeadLetterGrowing).',
        'ops',
        [query('A', `sum by (reason) (${rate(`crawld_dead_letters_total{${SEL}}`)})`, '{{reason}}')],
      ),
    )
    .withPanel(
      graph('Links', 'Links found on pages, by what became of them.', 'ops', [
        query('A', `sum by (result) (${rate(`crawld_links_total{${SEL}}`)})`, '{{result}}'),
      ]),
    )
    .withPanel(
      graph('Extraction', 'Fields extracted, extraction problems, and pages whose fields changed.', 'ops', [
        query('A', `sum(${rate(`crawld_items_extracted_total{${SEL}}`)})`, 'fields'),
        query('B', `sum(${rate(`crawld_extraction_errors_total{${SEL}}`)})`, 'errors'),
        query('C', `sum(${rate(`crawld_changes_total{${SEL}}`)})`, 'changed pages'),
      ]),
    );
}

/** WARC sinks (docs/archives.md): empty on instances without one. */
function archivesRow(d: dashboard.DashboardBuilder): void {
  d.withRow(new dashboard.RowBuilder('Archives (WARC)'))
    .withPanel(
      graph('WARC records/s', 'Records written by the WARC sinks, by WARC-Type.', 'ops', [
        query('A', `sum by (type) (${rate(`crawld_warc_records_total{${SEL}}`)})`, '{{type}}'),
      ]),
    )
    .withPanel(
      graph(
        'WARC bytes',
        "Bytes written per second (gzip members), and the size of each instance's open file, which closes before it would pass maxFileBytes.",
        'bytes',
        [
          query('A', `sum(${rate(`crawld_warc_bytes_total{${SEL}}`)})`, 'written/s'),
          query('B', `sum by (instance) (crawld_warc_open_file_bytes{${SEL}})`, 'open file {{instance}}'),
        ],
      ),
    )
    .withPanel(
      graph(
        'WARC files closed',
        'Files closed and indexed per hour (rollover, stop, recovery at start).',
        'short',
        [query('A', `sum(increase(crawld_warc_files_closed_total{${SEL}}[1h]))`, 'files/h')],
      ),
    );
}

function processRow(d: dashboard.DashboardBuilder): void {
  d.withRow(new dashboard.RowBuilder('Process'))
    .withPanel(
      graph('CPU', 'CPU time per second of each crawld process (1 = one core).', 'percentunit', [
        query('A', `sum by (instance) (${rate(`process_cpu_seconds_total{${SEL}}`)})`, '{{instance}}'),
      ]),
    )
    .withPanel(
      graph('Memory', 'Resident set size and V8 heap in use.', 'bytes', [
        query('A', `sum by (instance) (process_resident_memory_bytes{${SEL}})`, 'rss {{instance}}'),
        query('B', `sum by (instance) (nodejs_heap_size_used_bytes{${SEL}})`, 'heap {{instance}}'),
      ]),
    )
    .withPanel(
      graph(
        'Event-loop lag',
        `Lag of the Node.js event loop; CrawldEventLoopLag fires above ${EVENT_LOOP_LAG_THRESHOLD} s.`,
        's',
        [
          query('A', `max by (instance) (nodejs_eventloop_lag_seconds{${SEL}})`, 'lag {{instance}}'),
          query('B', `max by (instance) (nodejs_eventloop_lag_p99_seconds{${SEL}})`, 'p99 {{instance}}'),
        ],
      )
        .thresholds(redFrom(EVENT_LOOP_LAG_THRESHOLD))
        .thresholdsStyle(
          new common.GraphThresholdsStyleConfigBuilder().mode(common.GraphThresholdsStyleMode.Line),
        ),
    );
}

/** The fleet view: throughput, errors, limits, frontier and process health. */
export function overviewDashboard(): dashboard.Dashboard {
  const d = baseDashboard(
    'crawld-overview',
    'crawld / Overview',
    'Throughput, failures, latency, concurrency, frontier and process health of every selected crawld instance.',
  ).variables(scopeVariables());
  throughputRow(d);
  errorBudgetRow(d);
  jobsRow(d);
  requestsRow(d);
  frontierRow(d);
  archivesRow(d);
  processRow(d);
  d.link(
    new dashboard.DashboardLinkBuilder('Per host')
      .type(dashboard.DashboardLinkType.Dashboards)
      .tags(['crawld'])
      .asDropdown(false)
      .includeVars(true)
      .keepTime(true),
  );
  return numberPanels(d.build());
}
