import winston from 'winston';

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

/**
 * JSON lines to stdout (journald and container runtimes collect stdout), or to stderr when
 * stdout carries a command's own output. One logger per daemon; components get it injected.
 */
export function createLogger(options: {
  level: LogLevel;
  instanceId: string;
  stream?: 'stdout' | 'stderr';
  silent?: boolean;
}): winston.Logger {
  const stderrLevels = options.stream === 'stderr' ? ['error', 'warn', 'info', 'debug'] : [];
  const logger = winston.createLogger({
    level: options.level,
    silent: options.silent ?? false,
    defaultMeta: { instance: options.instanceId },
    format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
    transports: [new winston.transports.Console({ stderrLevels })],
  });
  // A line logged after shutdown ended the logger (a late socket close, say) is an error
  // event on the stream; unhandled, it would kill a process that was exiting cleanly.
  logger.on('error', () => {});
  return logger;
}

export type Logger = winston.Logger;

/** Removes credentials and query strings from a URL before it reaches an info-level log line. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    // Assembled by hand: URL would percent-encode the ellipsis.
    return `${u.protocol}//${u.host}${u.pathname}${u.search ? '?…' : ''}`;
  } catch {
    return '(invalid url)';
  }
}
