export const USAGE = `crawld — an observable web-crawler daemon

Usage:
  crawld crawl URL... [--config FILE] [--data-dir DIR] [--http-port P] [--once]
                      [--allow-private-networks] [--max-concurrency N] [--rate R]
                      [--log-level L]
  crawld run --config FILE [--once] [--http-port P] [--data-dir DIR]
  crawld demo [--pages N] [--latency-ms L] [--site-port P] [--data-dir DIR] [--once]
              [--http-port P] [--max-concurrency N] [--rate R] [--capacity K]
  crawld site [--port P] [--pages N] [--latency-ms L] [--error-rate R] [--capacity K]
  crawld check-config FILE
  crawld help

Exit codes: 0 success; 1 runtime failure; 2 invalid arguments or configuration
(nothing is written); 3 forced exit on a second signal.`;
