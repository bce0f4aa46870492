/**
 * Hunger marks in memory, for the daemons of one test (ports/work-sharing.ts): what the Redis
 * adapter keeps in `{PREFIX}:hungry`, with the same rules (a mark counts while its time is
 * after now; one's own mark does not count for othersHungry).
 */
import type { WorkSharing } from '../../src/ports/work-sharing.js';

export class HungerBoard {
  readonly #marks = new Map<string, number>();
  /** Marks written and checks made, for tests that count calls. */
  writes = 0;
  reads = 0;
  /** Every call fails while set (a store that cannot be reached). */
  down = false;

  until(id: string): number | undefined {
    return this.#marks.get(id);
  }

  port(id: string): WorkSharing {
    const check = () => {
      if (this.down) throw new Error('store down');
    };
    return {
      hungry: async (now, untilMs) => {
        check();
        this.writes++;
        for (const [other, until] of this.#marks) if (until < now) this.#marks.delete(other);
        this.#marks.set(id, untilMs);
      },
      fed: async () => {
        check();
        this.#marks.delete(id);
      },
      othersHungry: async (now) => {
        check();
        this.reads++;
        return [...this.#marks].some(([other, until]) => other !== id && until > now);
      },
    };
  }
}
