import type { BreakerTransition, HostBreaker, HostBreakerRegistry } from '../ports/breaker.js';
import { POSITIVE_INT } from './bound.js';
import { BreakerPolicy, type BreakerPolicyOptions, checkBreakerOptions } from './breaker-policy.js';
import { checkNumber } from './check.js';
import type { Clock } from './clock.js';
import { Listeners } from './listeners.js';
import { LruMap } from './lru-map.js';

export interface HostBreakersOptions extends BreakerPolicyOptions {
  /** @default 10000 */
  readonly maxHosts?: number;
}

/** No timers, so idle hosts cost nothing; an open breaker outlives maxHosts (else its host is hammered again). */
export class PolicyHostBreakers implements HostBreakerRegistry {
  readonly #options: Required<BreakerPolicyOptions>;
  readonly #clock: Clock;
  readonly #breakers: LruMap<string, BreakerPolicy>;
  readonly #listeners = new Listeners<[BreakerTransition]>('breakerTransition');

  constructor(options: HostBreakersOptions = {}, clock: Clock) {
    const { maxHosts = 10_000, ...policy } = options;
    checkNumber('maxHosts', maxHosts, POSITIVE_INT);
    this.#options = checkBreakerOptions(policy);
    this.#clock = clock;
    this.#breakers = new LruMap(maxHosts, (b) => b.state === 'closed');
  }

  get size(): number {
    return this.#breakers.size;
  }

  get(host: string): HostBreaker {
    let breaker = this.#breakers.get(host);
    if (!breaker) {
      breaker = new BreakerPolicy(this.#options, this.#clock);
      breaker.onTransition(({ from, to }) => {
        this.#listeners.emit({ host, from, to });
      });
      this.#breakers.set(host, breaker);
    }
    return breaker;
  }

  onTransition(listener: (t: BreakerTransition) => void): () => void {
    return this.#listeners.add(listener);
  }

  close(): void {}
}
