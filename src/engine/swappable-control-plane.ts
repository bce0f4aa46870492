import { Listeners } from '../core/listeners.js';
import type { Admission, ControlPlane, FetcherKind, HostSnapshot } from '../ports/control-plane.js';

/**
 * Lets a config reload (SIGHUP) replace the control plane while requests are in flight.
 * Permits already handed out are released to the plane that issued them; new requests go
 * to the new plane, which must also leave room for what the old plane still has in flight
 * so the global ceiling holds across the swap. The old plane is dropped once it is idle.
 */
export class SwappableControlPlane implements ControlPlane {
  #current: ControlPlane;
  #draining: ControlPlane | undefined;
  readonly #listeners = new Listeners('available');
  #unsubscribe: Array<() => void> = [];

  constructor(initial: ControlPlane) {
    this.#current = initial;
    this.#subscribe(initial);
  }

  get current(): ControlPlane {
    return this.#current;
  }

  swap(next: ControlPlane): void {
    this.#draining = this.#current.inflight() > 0 ? this.#current : undefined;
    this.#current = next;
    this.#subscribe(next);
    this.#notify();
  }

  #subscribe(plane: ControlPlane): void {
    this.#unsubscribe.push(plane.onAvailable(() => this.#notify()));
  }

  #notify(): void {
    if (this.#draining && this.#draining.inflight() === 0) {
      this.#draining = undefined;
      // Keep only the current plane's subscription.
      for (const off of this.#unsubscribe.slice(0, -1)) off();
      this.#unsubscribe = this.#unsubscribe.slice(-1);
    }
    this.#listeners.emit();
  }

  admit(host: string, kind?: FetcherKind): Admission {
    const old = this.#draining?.inflight() ?? 0;
    if (old > 0 && old + this.#current.inflight() >= this.#current.globalLimit()) return { kind: 'full' };
    return this.#current.admit(host, kind);
  }

  onAvailable(listener: () => void): () => void {
    return this.#listeners.add(listener);
  }

  fetcherChanged(host: string, kind: FetcherKind): void {
    this.#current.fetcherChanged?.(host, kind);
  }

  hostLimit(host: string): number {
    return this.#current.hostLimit(host);
  }

  breakerRetryInMs(host: string): number {
    return this.#current.breakerRetryInMs(host);
  }

  inflight(): number {
    return this.#current.inflight() + (this.#draining?.inflight() ?? 0);
  }

  globalLimit(): number {
    return this.#current.globalLimit();
  }

  hostSnapshots(): Iterable<HostSnapshot> {
    return this.#current.hostSnapshots();
  }
}
