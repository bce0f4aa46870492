import { LruMap } from '../lru-map.js';
import { alike } from './alike.js';
import type { Fingerprint } from './fingerprint.js';

/**
 * Learns which query parameters do not change a host's pages (DUST, Bar-Yossef et al., WWW 2007): agreeing tests
 * on two URLs learn one; a single disagreement keeps it for good, so a real `page` parameter is never dropped.
 */
const AGREEING_URLS = 2;
const AGREEING_TESTS = 3;
const MAX_PENDING = 256;

interface Pending {
  readonly value: string;
  readonly own: Fingerprint;
}

export class ParamLearner {
  readonly #similarity: number;
  readonly ignored = new Set<string>();
  readonly #relevant = new Set<string>();
  readonly #agreed = new Map<string, { tests: number; urls: Set<string> }>();
  readonly #pending = new LruMap<string, Pending>(MAX_PENDING);

  constructor(similarity: number) {
    this.#similarity = similarity;
  }

  testing(pairs: readonly (readonly [string, string])[]): boolean {
    return pairs.some(([name]) => !this.ignored.has(name) && !this.#relevant.has(name));
  }

  /** Names lower case, values raw, session ids already out; returns the parameters learned. */
  observe(path: string, pairs: readonly (readonly [string, string])[], own: Fingerprint): string[] {
    const learned: string[] = [];
    for (let k = 0; k < pairs.length; k++) {
      const [name, value] = pairs[k] as readonly [string, string];
      if (this.ignored.has(name) || this.#relevant.has(name)) continue;
      const others = pairs.filter((_, j) => j !== k).map(([n, v]) => `${n}=${v}`);
      const sibling = `${path}?${others.sort().join('&')}`;
      const id = `${name}\n${sibling}`;
      const before = this.#pending.get(id);
      if (before === undefined) {
        this.#pending.set(id, { value, own });
        continue;
      }
      if (before.value === value) continue;
      if (!alike(own, before.own, this.#similarity)) {
        this.#relevant.add(name);
        this.#agreed.delete(name);
        continue;
      }
      const agreed = this.#agreed.get(name) ?? { tests: 0, urls: new Set<string>() };
      agreed.tests++;
      agreed.urls.add(sibling);
      this.#agreed.set(name, agreed);
      if (agreed.urls.size >= AGREEING_URLS || agreed.tests >= AGREEING_TESTS) {
        this.ignored.add(name);
        this.#agreed.delete(name);
        learned.push(name);
      }
    }
    return learned;
  }
}
