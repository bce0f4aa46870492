import type { ErrorCode } from '../core/errors.js';

/**
 * The exit status of a command that failed with a crawld error, by code: 2 for what the
 * operator typed (nothing was written), 1 for what went wrong at run time. A table over
 * every code, so that a new code cannot be added without choosing its status.
 */
const EXIT_STATUS: Readonly<Record<ErrorCode, 1 | 2>> = {
  CRAWLD_ERR_CONFIG: 2,
  CRAWLD_ERR_USAGE: 2,
  CRAWLD_ERR_INVALID_URL: 2,
  CRAWLD_ERR_INVALID_ARG: 2,
  // A bad JSON path in a config is reported as CRAWLD_ERR_CONFIG naming the field; one
  // thrown later is a runtime failure.
  CRAWLD_ERR_JSON_PATH: 1,
  CRAWLD_ERR: 1,
  CRAWLD_ERR_UNKNOWN: 1,
  CRAWLD_ERR_DATA_DIR_LOCKED: 1,
  CRAWLD_ERR_ADMIN_API: 1,
  CRAWLD_ERR_REDIS_UNAVAILABLE: 1,
  CRAWLD_ERR_REDIS_LAYOUT: 1,
  CRAWLD_ERR_FETCH: 1,
  CRAWLD_ERR_CONNECT_TIMEOUT: 1,
  CRAWLD_ERR_HEADERS_TIMEOUT: 1,
  CRAWLD_ERR_BODY_TIMEOUT: 1,
  CRAWLD_ERR_TOTAL_TIMEOUT: 1,
  CRAWLD_ERR_HUNG: 1,
  CRAWLD_ERR_CONNECTION: 1,
  CRAWLD_ERR_TLS: 1,
  CRAWLD_ERR_BODY_TOO_LARGE: 1,
  CRAWLD_ERR_HEADERS_TOO_LARGE: 1,
  CRAWLD_ERR_DECODED_TOO_LARGE: 1,
  CRAWLD_ERR_DECODE: 1,
  CRAWLD_ERR_TOO_MANY_REDIRECTS: 1,
  CRAWLD_ERR_REDIRECT_LOOP: 1,
  CRAWLD_ERR_REDIRECT_OUT_OF_SCOPE: 1,
  CRAWLD_ERR_RENDER_TIMEOUT: 1,
  CRAWLD_ERR_RENDER_CRASH: 1,
  CRAWLD_ERR_BROWSER_UNAVAILABLE: 1,
  CRAWLD_ERR_BLOCKED_SCHEME: 1,
  CRAWLD_ERR_BLOCKED_ADDRESS: 1,
  CRAWLD_ERR_PROXY: 1,
  CRAWLD_ERR_CONTENT_TYPE: 1,
  CRAWLD_ERR_ABORTED: 1,
  CRAWLD_ERR_HTTP_STATUS: 1,
  CRAWLD_ERR_HTML_TOO_DEEP: 1,
  CRAWLD_ERR_SINK: 1,
  CRAWLD_ERR_CHANGE_DELIVERY: 1,
};

export function exitStatusOf(code: ErrorCode): 1 | 2 {
  return EXIT_STATUS[code];
}
