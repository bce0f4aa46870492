import type { Admission, ControlPlane, HostSnapshot, Outcome, Permit } from '../ports/control-plane.js';

/**
 * Fixed limits: at most `global` requests in flight, at most `perHost` per host.
 * Used by tests and as the fallback when adaptive control is turned off.
 */
export class FixedControlPlane implements ControlPlane {
  readonly #perHost: number;
  readonly #global: number;
  readonly #inflight = new Map<string, number>();
  #total = 0;
  readonly #listeners = new Set<() => void>();

  constructor(options: { global: number; perHost: number }) {
    this.#global = options.global;
    this.#perHost = options.perHost;
  }

  admit(host: string): Admission {
    const n = this.#inflight.get(host) ?? 0;
    if (this.#total >= this.#global || n >= this.#perHost) return { kind: 'full' };
    this.#inflight.set(host, n + 1);
    this.#total++;
    let released = false;
    const permit: Permit = {
      release: (_outcome: Outcome) => {
        if (released) return;
        released = true;
        this.#total--;
        const left = (this.#inflight.get(host) ?? 1) - 1;
        if (left === 0) this.#inflight.delete(host);
        else this.#inflight.set(host, left);
        for (const l of this.#listeners) l();
      },
    };
    return { kind: 'go', permit };
  }

  onAvailable(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  hostLimit(): number {
    return this.#perHost;
  }

  inflight(): number {
    return this.#total;
  }

  globalLimit(): number {
    return this.#global;
  }

  *hostSnapshots(): Iterable<HostSnapshot> {
    for (const [host, inflight] of this.#inflight) {
      yield { host, limit: this.#perHost, inflight, breaker: 'closed' };
    }
  }
}
