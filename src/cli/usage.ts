export const USAGE = `crawld — an observable web-crawler daemon

Usage:
  crawld crawl URL... [--config FILE] [--data-dir DIR] [--http-port P] [--once]
                      [--allow-private-networks] [--max-concurrency N] [--rate R]
                      [--log-level L] [--frontier redis://HOST:PORT/DB]
                      [--sink postgres://USER@HOST:PORT/DB ...]
  crawld run --config FILE [--once] [--http-port P] [--data-dir DIR]
             [--frontier redis://HOST:PORT/DB] [--sink postgres://USER@HOST:PORT/DB ...]
  crawld demo [--pages N] [--latency-ms L] [--site-port P] [--data-dir DIR] [--once]
              [--http-port P] [--max-concurrency N] [--rate R] [--capacity K] [--js]
  crawld site [--port P] [--host H] [--pages N] [--latency-ms L] [--error-rate R] [--capacity K]
              [--change-rate R] [--cycle-ms MS] [--js]
  crawld check-config FILE
  crawld submit URL... [--api URL] [--token-file F] [--priority N] [--job ID]
  crawld dlq list [--api URL | --config FILE | --data-dir DIR | --frontier redis://...]
                  [--json] [--limit N] [--offset N] [--job ID] [--key-prefix P]
  crawld dlq redrive [--api URL | --config FILE | --data-dir DIR | --frontier redis://...]
                     [--id ID ...] [--job ID] [--token-file F] [--key-prefix P]
  crawld help

Exit codes: 0 success; 1 runtime failure; 2 invalid arguments or configuration
(nothing is written); 3 forced exit on a second signal.

submit and dlq talk to the daemon's admin API (--api, default http://127.0.0.1:9464 or
$CRAWLD_API) with the token of --token-file or $CRAWLD_ADMIN_TOKEN; dlq --data-dir works
on a stopped daemon's data dir instead (refused while a daemon holds it), dlq --config on
the frontier the config names (frontier.path, or its Redis), dlq --frontier on a shared
Redis frontier (safe while its daemons run).

--frontier redis://HOST:PORT/DB shares the frontier (and the rate limits) with every daemon
on that Redis (docs/redis.md); a password in the URL shows in ps: prefer a config file.
--frontier redis-cluster://HOST:PORT,HOST:PORT,... does the same on a Redis Cluster (any
reachable start-up node will do; none reachable: exit 2).

--js (site, demo): the shop renders its products with JavaScript; demo crawls it with
jobs[].render.kind browser, in the system's headless Chromium (docs/browser.md).`;
