import { Gauge, type Registry } from 'prom-client';
import type { FrontierStats } from '../ports/frontier.js';

/**
 * The frontier's gauges, from one stats query per scrape: each gauge awaits it in its own
 * collect (prom-client collects all metrics concurrently, so setting them from another gauge's
 * collect would expose the previous scrape's values, and nothing on the first).
 */
export function registerFrontierMetrics(
  registry: Registry,
  stats: () => Promise<FrontierStats>,
  knownPriorities: readonly number[] = [0],
): void {
  const r = [registry];
  let statsQuery: Promise<FrontierStats | undefined> | undefined;
  const frontierStats = (): Promise<FrontierStats | undefined> => {
    statsQuery ??= stats()
      .catch(() => undefined)
      .finally(() => {
        statsQuery = undefined;
      });
    return statsQuery;
  };
  const priorities = new Set(knownPriorities.map(String));
  new Gauge({
    name: 'crawld_frontier_pending',
    help: 'Tasks waiting in the frontier (ready and delayed), by priority.',
    labelNames: ['priority'],
    registers: r,
    async collect() {
      const s = await frontierStats();
      if (!s) return;
      // Every priority ever seen stays, at 0 when empty: an empty queue is data.
      for (const p of priorities) this.set({ priority: p }, 0);
      for (const [p, n] of Object.entries(s.pendingByPriority)) {
        priorities.add(p);
        this.set({ priority: p }, n);
      }
    },
  });
  const frontierGauge = (name: string, help: string, read: (s: FrontierStats) => number) =>
    new Gauge({
      name,
      help,
      registers: r,
      async collect() {
        const s = await frontierStats();
        if (s) this.set(read(s));
      },
    });
  frontierGauge(
    'crawld_frontier_delayed',
    'Pending tasks whose retry or recrawl time is in the future.',
    (s) => s.delayed,
  );
  frontierGauge('crawld_frontier_leased', 'Tasks leased by workers.', (s) => s.leased);
  frontierGauge('crawld_frontier_done', 'Tasks done.', (s) => s.done);
  frontierGauge('crawld_dead_letter_size', 'Tasks in the dead-letter queue.', (s) => s.dead);
  new Gauge({
    name: 'crawld_frontier_up',
    help: '1 when the last frontier stats query succeeded.',
    registers: r,
    async collect() {
      this.set((await frontierStats()) ? 1 : 0);
    },
  });
}
