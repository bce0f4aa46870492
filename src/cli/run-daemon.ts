import { resolve } from 'node:path';
import type { CrawldConfig } from '../config/config.js';
import { systemClock } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';
import { createDaemon, type Daemon, instanceIdOf } from '../daemon/daemon.js';
import { describeSinks } from '../daemon/sink-factory.js';
import { createLogger, type Logger } from '../observe/logger.js';
import { startProgress } from '../observe/progress.js';
import { describeTraps } from '../observe/trap-counts.js';
import { limitHeapGrowth } from './heap-growth.js';
import { holdProcess, whenLoopDrains } from './keep-alive.js';

export interface RunOptions {
  readonly once: boolean;
  /** Logs to stderr so that stdout carries only the summary (interactive commands). */
  readonly logToStderr: boolean;
  /** Re-reads the config (SIGHUP); absent when the command has no config file. */
  readonly reloadConfig?: () => CrawldConfig;
  /** Called once the daemon runs (e.g. to print where it listens). */
  readonly onStarted?: (info: { httpUrl?: string }) => void;
  /** Live progress line on stderr; drawn only when stderr is a TTY (default: on). */
  readonly progress?: boolean;
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
  limitHeapGrowth();
  const clock = systemClock;
  const logger = createLogger({
    level: config.log.level,
    instanceId: instanceIdOf(config),
    stream: opts.logToStderr ? 'stderr' : 'stdout',
  });
  // Binds the HTTP port too (http.port), before the crawl starts.
  const daemon = await createDaemon(config, { once: opts.once, logger, clock });
  // Only on a terminal: in a pipe, a file or journald the \r redraws would be noise.
  const stopProgress =
    opts.progress !== false && process.stderr.isTTY ? startProgress(daemon, process.stderr) : undefined;

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
  const onHangup = () => void reloadOnHangup(daemon, logger, opts.reloadConfig);
  process.on('SIGHUP', onHangup);

  // `run` stays up until signalled, whatever it is waiting for; `--once` ends when its tasks
  // have, and if the loop drains before that (a bug) it says so and exits non-zero.
  const release = opts.once ? undefined : holdProcess();
  const guard = opts.once ? whenLoopDrains() : undefined;
  const drained = guard?.drained.then(async () => {
    const stats = await daemon.frontier.stats().catch(() => undefined);
    logger.error('crawl loop stopped with work left: exiting non-zero', {
      ...(stats ? { pending: stats.pending, leased: stats.leased } : {}),
      inflight: daemon.scheduler.inflightCount,
      buffered: daemon.scheduler.bufferedCount,
    });
    return EXIT_FAILURE;
  });
  const running = daemon.run().then(
    () => EXIT_OK,
    (err: unknown) => {
      logger.error('crawl loop failed', { error: String(err) });
      return EXIT_FAILURE;
    },
  );
  await daemon.serveHttp();
  opts.onStarted?.({ httpUrl: daemon.httpUrl });
  const code = await (drained ? Promise.race([running, drained]) : running);
  guard?.dispose();
  release?.();
  stopProgress?.();
  await daemon.stop();
  process.off('SIGTERM', onSignal);
  process.off('SIGINT', onSignal);
  process.off('SIGHUP', onHangup);

  if (opts.once) printSummary(daemon, config, clock.now());
  await new Promise<void>((r) => logger.on('finish', r).end());
  return code;
}

/** SIGHUP: re-read and validate the config; an invalid one is refused and the old one kept. */
async function reloadOnHangup(
  daemon: Daemon,
  logger: Logger,
  reloadConfig: (() => CrawldConfig) | undefined,
): Promise<void> {
  if (!reloadConfig) {
    logger.warn('SIGHUP: no config file to reload');
    return;
  }
  try {
    // An unreadable admin token file refuses the whole config (ConfigError from reload).
    const result = await daemon.reload(reloadConfig());
    if (result.needsRestart.length > 0) {
      logger.warn('SIGHUP: some changes need a restart', { sections: result.needsRestart });
    }
  } catch (err) {
    const issues = err instanceof ConfigError ? err.issues : [String(err)];
    logger.error('SIGHUP: new config refused; keeping the running one', { issues });
  }
}

/** The --once summary on stdout: what ended how, and what the trap rules kept out. */
function printSummary(daemon: Daemon, config: CrawldConfig, now: number): void {
  const c = daemon.scheduler.counters;
  const seconds = (now - daemon.startedAt) / 1000;
  const rate = seconds > 0 ? c.ok / seconds : 0;
  const results = describeSinks(config, resolve(config.dataDir));
  const r = daemon.renderPaths;
  const render =
    r.http + r.browser + r.both > 0
      ? `; render auto: ${r.http} http, ${r.browser} browser, ${r.both} both`
      : '';
  process.stdout.write(
    `crawld: done in ${seconds.toFixed(1)} s: ${c.ok} ok, ${c.dead} failed, ${c.skipped} skipped, ` +
      `${c.retry} retries, ${rate.toFixed(1)} pages/s${render}; results in ${results}\n`,
  );
  // URLs the trap rules kept out: not fetched (session ids, repeated paths) or not expanded.
  if (daemon.traps.sum > 0)
    process.stdout.write(`crawld: traps skipped: ${describeTraps(daemon.traps.total)}\n`);
}
