import { resolve } from 'node:path';
import { systemClock } from '../core/clock.js';
import { mountRoutes } from '../daemon/admin-routes.js';
import type { CrawldConfig } from '../daemon/config.js';
import { createDaemon } from '../daemon/daemon.js';
import { createApp, type HttpServerHandle, listen } from '../observe/http.js';
import { createLogger } from '../observe/logger.js';
import { mountStatusPage } from '../observe/status-page.js';

export interface RunOptions {
  readonly once: boolean;
  /** Logs to stderr so that stdout carries only the summary (interactive commands). */
  readonly logToStderr: boolean;
  /** Called once the daemon runs (e.g. to print where it listens). */
  readonly onStarted?: (info: { httpUrl?: string }) => void;
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
export const EXIT_FORCED = 3;

/**
 * Runs one daemon until its crawl ends (--once) or a signal stops it. SIGTERM/SIGINT drain
 * gracefully; a second signal exits at once with code 3.
 */
export async function runDaemon(config: CrawldConfig, opts: RunOptions): Promise<number> {
  const clock = systemClock;
  const logger = createLogger({
    level: config.log.level,
    instanceId: config.instanceId ?? `crawld-${process.pid}`,
    stream: opts.logToStderr ? 'stderr' : 'stdout',
  });
  const daemon = await createDaemon(config, { once: opts.once, logger, clock });
  let http: HttpServerHandle | undefined;
  if (config.http.port !== null) {
    const app = createApp();
    mountRoutes(app, daemon, clock);
    mountStatusPage(app, daemon);
    http = await listen(app, config.http.host, config.http.port);
    logger.info('http server listening', { url: http.url });
  }
  opts.onStarted?.({ httpUrl: http?.url });

  let signals = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    signals++;
    if (signals > 1) {
      logger.warn('second signal: forced exit', { signal: sig });
      process.exit(EXIT_FORCED);
    }
    logger.info('signal received: stopping', { signal: sig });
    void daemon.stop();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  let code = EXIT_OK;
  try {
    await daemon.run();
  } catch (err) {
    logger.error('crawl loop failed', { error: String(err) });
    code = EXIT_FAILURE;
  }
  await daemon.stop();
  await http?.close();
  process.off('SIGTERM', onSignal);
  process.off('SIGINT', onSignal);

  if (opts.once) {
    const c = daemon.scheduler.counters;
    const seconds = (clock.now() - daemon.startedAt) / 1000;
    const rate = seconds > 0 ? c.ok / seconds : 0;
    const results = config.sinks.map((s) => s.path ?? resolve(config.dataDir, 'results.jsonl')).join(', ');
    process.stdout.write(
      `crawld: done in ${seconds.toFixed(1)} s: ${c.ok} ok, ${c.dead} failed, ${c.skipped} skipped, ` +
        `${c.retry} retries, ${rate.toFixed(1)} pages/s; results in ${results}\n`,
    );
  }
  await new Promise<void>((r) => logger.on('finish', r).end());
  return code;
}
