import * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import {
  BREAKER_STATES,
  baseDashboard,
  graph,
  multiVariable,
  numberPanels,
  query,
  rate,
  SEL,
  scopeVariables,
} from './panel-kit.js';

/**
 * Host labels are bounded (src/observe/host-labels.ts): only the busiest hosts keep their
 * name, every other host is `other`, so this variable never lists millions of values.
 */
function hostVariable(): dashboard.QueryVariableBuilder {
  return multiVariable('host', 'Host', `label_values(crawld_requests_total{${SEL}}, host)`);
}

const HSEL = `${SEL}, host=~"$host"`;
const quantile = (q: number) =>
  query(
    `P${Math.round(q * 100)}`,
    `histogram_quantile(${q}, sum by (host, le) (${rate(`crawld_request_duration_seconds_bucket{${HSEL}}`)}))`,
    `p${Math.round(q * 100)} {{host}}`,
  );

/** One or more hosts: what crawld sees of them and how it throttles itself for them. */
export function hostDashboard(): dashboard.Dashboard {
  const d = baseDashboard(
    'crawld-host',
    'crawld / Host',
    'Requests, errors, latency, adaptive concurrency, breaker and rate limiting of the selected hosts.',
  ).variables([...scopeVariables(), hostVariable()]);

  d.withRow(new dashboard.RowBuilder('Responses'))
    .withPanel(
      graph('Requests/s by status class', 'Responses of the selected hosts by status class.', 'reqps', [
        query(
          'A',
          `sum by (host, status_class) (${rate(`crawld_requests_total{${HSEL}}`)})`,
          '{{host}} {{status_class}}',
        ),
      ]),
    )
    .withPanel(
      graph(
        'Fetch errors by reason',
        'Requests that got no usable response (timeouts, resets, ...).',
        'ops',
        [
          query(
            'A',
            `sum by (host, reason) (${rate(`crawld_fetch_errors_total{${HSEL}}`)})`,
            '{{host}} {{reason}}',
          ),
        ],
      ),
    )
    .withPanel(
      graph('Request latency', 'Whole request duration per host.', 's', [
        quantile(0.5),
        quantile(0.95),
        quantile(0.99),
      ]),
    )
    .withPanel(
      graph('Downloaded', 'Bytes received on the wire (compressed) per second.', 'Bps', [
        query('A', `sum by (host) (${rate(`crawld_downloaded_bytes_total{${HSEL}}`)})`, '{{host}}'),
      ]),
    );

  d.withRow(new dashboard.RowBuilder('Throttling'))
    .withPanel(
      graph(
        'Adaptive concurrency',
        'The AIMD limit of each host against its requests in flight: in flight pinned at the limit means the host is the bottleneck.',
        'short',
        [
          query('A', `sum by (host) (crawld_host_concurrency_limit{${HSEL}})`, 'limit {{host}}'),
          query('B', `sum by (host) (crawld_host_inflight_requests{${HSEL}})`, 'in flight {{host}}'),
        ],
      ),
    )
    .withPanel(
      graph(
        'Learned timeouts',
        'The timeout of the response headers and of a silence in the body each host is held to: learned from its answers (docs/control-plane.md), the configured one until then. A request still waiting past it is given up as hung and retried.',
        's',
        [
          query(
            'A',
            `max by (host, phase) (crawld_host_timeout_seconds{${HSEL}, phase=~"headers|body"})`,
            '{{host}} {{phase}}',
          ),
        ],
      ),
    )
    .withPanel(
      graph('Circuit breaker', 'Breaker state per host: closed, half-open, open.', 'short', [
        query('A', `max by (host) (crawld_breaker_state{${HSEL}})`, '{{host}}'),
      ])
        .mappings(BREAKER_STATES)
        .min(0)
        .max(2),
    )
    .withPanel(
      graph(
        'Rate-limit waits',
        'Requests of the host held back by its token bucket (rate_limit) or its minimum delay (politeness).',
        'ops',
        [
          query(
            'A',
            `sum by (host, reason) (${rate(`crawld_rate_limit_waits_total{${HSEL}}`)})`,
            '{{host}} {{reason}}',
          ),
        ],
      ),
    );

  return numberPanels(d.build());
}
