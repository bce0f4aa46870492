export const USAGE = `crawld — an observable web-crawler daemon

Usage:
  crawld crawl URL... [--config FILE] [--data-dir DIR] [--http-port P] [--once]
                      [--allow-private-networks] [--max-concurrency N] [--rate R]
                      [--log-level L]
  crawld run --config FILE [--once] [--http-port P] [--data-dir DIR]
  crawld demo [--pages N] [--latency-ms L] [--site-port P] [--data-dir DIR] [--once]
              [--http-port P] [--max-concurrency N] [--rate R] [--capacity K]
  crawld site [--port P] [--host H] [--pages N] [--latency-ms L] [--error-rate R] [--capacity K]
  crawld check-config FILE
  crawld submit URL... [--api URL] [--token-file F] [--priority N] [--job ID]
  crawld dlq list [--api URL | --data-dir DIR] [--json] [--limit N] [--offset N] [--job ID]
  crawld dlq redrive [--api URL | --data-dir DIR] [--id ID ...] [--job ID] [--token-file F]
  crawld help

Exit codes: 0 success; 1 runtime failure; 2 invalid arguments or configuration
(nothing is written); 3 forced exit on a second signal.

submit and dlq talk to the daemon's admin API (--api, default http://127.0.0.1:9464 or
$CRAWLD_API) with the token of --token-file or $CRAWLD_ADMIN_TOKEN; dlq --data-dir works
on a stopped daemon's data dir instead (refused while a daemon holds it).`;
