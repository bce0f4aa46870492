import type { Daemon } from './daemon-api.js';

/** The JSON served at /api/stats and polled by the status page. */
export async function collectStats(d: Daemon, now: number) {
  const frontier = await d.frontier.stats();
  const c = d.scheduler.counters;
  const uptimeSeconds = (now - d.startedAt) / 1000;
  return {
    instance: d.instanceId,
    state: d.scheduler.state,
    ready: d.ready(),
    uptimeSeconds,
    pages: { ok: c.ok, retried: c.retry, failed: c.dead, skipped: c.skipped, deferred: c.deferred },
    inflight: d.scheduler.inflightCount,
    buffered: d.scheduler.bufferedCount,
    frontier,
  };
}
