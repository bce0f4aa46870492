import { dirname, join, resolve } from 'node:path';
import { MemoryFrontier } from '../adapters/frontier/memory/memory-frontier.js';
import { SqliteFrontier } from '../adapters/frontier/sqlite/sqlite-frontier.js';
import { SqliteMapStore } from '../adapters/shared-map/sqlite-map-store.js';
import { VolatileMapStore } from '../adapters/shared-map/volatile-map-store.js';
import type { CrawldConfig } from '../config/config.js';
import { isRedisKind } from '../config/predicates.js';
import { systemClock } from '../core/clock.js';
import type { BuiltFrontier, FrontierDeps } from './frontier-types.js';
import { instanceIdOf } from './root.js';

/**
 * Async so that ioredis and the Redis adapters load only for a Redis frontier: every CLI
 * command (and a SQLite crawl's start-up) would otherwise pay for them.
 */
export async function createFrontier(config: CrawldConfig, deps: FrontierDeps): Promise<BuiltFrontier> {
  const f = config.frontier;
  if (!isRedisKind(f.kind)) {
    const path = f.path ?? join(deps.dataDir, 'frontier.db');
    const frontier =
      f.kind === 'memory'
        ? new MemoryFrontier({ clock: deps.clock, maxPending: f.maxPending })
        : new SqliteFrontier({ path, clock: deps.clock, maxPending: f.maxPending });
    return {
      frontier,
      open: () => frontier.open(),
      shared: false,
      healthy: () => true,
      // A single daemon learns of new work from its own enqueues (Scheduler.kick).
      scheduling: { idlePollMs: 0 },
      createMapStore: (kind) =>
        f.kind === 'memory'
          ? new VolatileMapStore()
          : new SqliteMapStore(join(dirname(resolve(path)), `${kind}.db`), kind),
      giveUp: () => {},
      close: async () => {},
    };
  }
  const { createRedisStore } = await import('./redis-store-factory.js');
  return createRedisStore(config, deps);
}

export interface OpenedFrontier extends BuiltFrontier {
  release(): Promise<void>;
}

/** For the daemon and the CLI's stored-frontier commands (dlq); a failed open releases what was created. */
export async function openFrontier(
  config: CrawldConfig,
  deps: Partial<FrontierDeps> = {},
): Promise<OpenedFrontier> {
  const built = await createFrontier(config, {
    clock: systemClock,
    dataDir: resolve(config.dataDir),
    instanceId: instanceIdOf(config),
    ...deps,
  });
  try {
    await built.open();
  } catch (err) {
    await built.close();
    throw err;
  }
  return {
    ...built,
    release: async () => {
      await built.frontier.close();
      await built.close();
    },
  };
}
