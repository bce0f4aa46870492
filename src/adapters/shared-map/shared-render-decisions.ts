/** An auto-render job's decisions per host in a SharedMapStore (`"http"` or `"browser"`);
 *  a host's learning counters stay in this process. */
import { type HostRender, LEARNING, type RenderDecision } from '../../core/render-choice.js';
import type { RenderDecisions } from '../../ports/render-decisions.js';
import type { MapChange, SharedMapStore } from '../../ports/shared-map.js';
import { type MapOp, MapSync } from './map-sync.js';

type Decided = Exclude<RenderDecision, 'learning'>;

export interface StoredRenderDecisionsOptions {
  readonly jobId: string;
  readonly store: SharedMapStore;
  readonly now: () => number;
  /** How often other daemons' decisions are read (shared stores). @default 1000 */
  readonly refreshMs?: number;
  readonly onError?: (op: MapOp, error: unknown) => void;
  /** A host's decision changed (here or by another daemon). */
  readonly onDecision?: (host: string, decision: Decided) => void;
}

export class StoredRenderDecisions implements RenderDecisions {
  readonly #o: StoredRenderDecisionsOptions;
  readonly #hosts = new Map<string, HostRender>();
  readonly #sync: MapSync;
  /** Decisions from before a restart are not told to onDecision. */
  #loading = false;

  constructor(options: StoredRenderDecisionsOptions) {
    this.#o = options;
    this.#sync = new MapSync({
      store: options.store,
      map: options.jobId,
      apply: (changes, reset) => this.#apply(changes, reset),
      now: options.now,
      ...(options.refreshMs !== undefined ? { refreshMs: options.refreshMs } : {}),
      ...(options.onError ? { onError: options.onError } : {}),
    });
  }

  async open(): Promise<void> {
    this.#loading = true;
    try {
      await this.#sync.load();
    } finally {
      this.#loading = false;
    }
  }

  get(host: string): HostRender {
    this.#sync.refresh();
    return this.#hosts.get(host) ?? LEARNING;
  }

  set(host: string, state: HostRender): void {
    const before = this.#hosts.get(host)?.decision ?? 'learning';
    this.#hosts.set(host, state);
    if (state.decision === before || state.decision === 'learning') return;
    void this.#sync.write([{ id: host, json: JSON.stringify(state.decision) }]);
    this.#o.onDecision?.(host, state.decision);
  }

  *decided(): Iterable<readonly [string, Decided]> {
    for (const [host, s] of this.#hosts) if (s.decision !== 'learning') yield [host, s.decision];
  }

  /** Waits for the decisions being written (shutdown). */
  close(): Promise<void> {
    return this.#sync.write([]);
  }

  #apply(changes: readonly MapChange[], reset: boolean): void {
    if (reset) for (const [host, s] of this.#hosts) if (s.decision !== 'learning') this.#hosts.delete(host);
    for (const c of changes) {
      const decision = c.json === undefined ? undefined : (JSON.parse(c.json) as unknown);
      if (decision !== 'http' && decision !== 'browser') {
        this.#hosts.delete(c.id);
        continue;
      }
      const known = this.#hosts.get(c.id) ?? LEARNING;
      if (known.decision === decision) continue;
      // Another daemon decided (or a restart reloads): this one follows, keeping its counters.
      this.#hosts.set(c.id, { ...known, decision, sinceCheck: 0 });
      if (!this.#loading) this.#o.onDecision?.(c.id, decision);
    }
  }
}
