/**
 * The limit hints of a shared frontier's daemons (core/limit/limit-hints.ts); none on SQLite or
 * memory, where one daemon's limiters already know every host it met.
 */
import { StoredLimitHints } from '../adapters/shared-map/stored-limit-hints.js';
import type { CrawldConfig } from '../config/config.js';
import { aimdOptionsOf } from '../config/control-options.js';
import type { Clock } from '../core/clock.js';
import { aimdDefaults } from '../core/limit/aimd.js';
import type { HostLimiters } from '../core/limiter.js';
import type { Logger } from '../observe/logger.js';
import type { FetcherKind } from '../ports/control-plane.js';
import type { BuiltFrontier } from './frontier-types.js';
import type { ReleaseStack } from './release-stack.js';

/** `built` is unset while the first control plane is being built. */
interface HintsRoot {
  readonly instanceId: string;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly stack: ReleaseStack;
  readonly live: { readonly built?: { readonly limiters: HostLimiters } };
}

export async function openLimitHints(
  root: HintsRoot,
  store: BuiltFrontier,
): Promise<StoredLimitHints | undefined> {
  if (!store.shared) return undefined;
  const mapStore = store.createMapStore('limits');
  await mapStore.open();
  root.stack.push('limits store', () => mapStore.close());
  const hints = new StoredLimitHints({
    store: mapStore,
    instanceId: root.instanceId,
    clock: root.clock,
    // The live limiters (a reload replaces them); only http limits are hints.
    current: (host) => {
      const known = root.live.built?.limiters.known(host);
      return known?.kind === 'http' ? known.limit : undefined;
    },
    onError: (op, error) => root.logger.debug('limit hints unavailable', { op, error: String(error) }),
  });
  await hints.open();
  root.stack.push('limit hints', () => hints.close());
  return hints;
}

function initialLimitOf(config: CrawldConfig): number {
  return aimdOptionsOf(config.concurrency).initialLimit ?? aimdDefaults.initialLimit;
}

/** Within (initialPerHost, maxPerHost], adaptive limits only. */
export function startLimitOf(
  config: CrawldConfig,
  hints: StoredLimitHints | undefined,
): ((host: string, kind: FetcherKind) => number | undefined) | undefined {
  if (!hints || !config.concurrency.adaptive) return undefined;
  const initial = initialLimitOf(config);
  const max = aimdOptionsOf(config.concurrency).maxLimit ?? aimdDefaults.maxLimit;
  return (host, kind) => {
    const hint = kind === 'http' ? hints.hint(host) : undefined;
    return hint === undefined || hint <= initial ? undefined : Math.min(max, Math.floor(hint));
  };
}

export function publishLimits(
  config: CrawldConfig,
  hints: StoredLimitHints | undefined,
  limiters: HostLimiters,
): void {
  if (!hints || !config.concurrency.adaptive) return;
  const initial = initialLimitOf(config);
  limiters.onLimitChange((host, limit, _reason, kind) => {
    if (kind === 'http') hints.changed(host, limit, initial);
  });
}
