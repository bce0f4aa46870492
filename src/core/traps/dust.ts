import { LruMap } from '../lru-map.js';
import { alike } from './alike.js';
import type { Fingerprint } from './fingerprint.js';

/**
 * Learning which query parameters of a host do not change its pages ("DUST": Bar-Yossef,
 * Keidar, Schonfeld, "Do not crawl in the DUST: different URLs with similar text", WWW 2007).
 * Two pages whose URLs differ only in one parameter's value are a test of that parameter: alike
 * (own text, alike.ts) is a vote that it does not matter, different is proof that it does. A
 * parameter is learned once tests on two different URLs agreed (or three on one URL, a page that
 * links to itself under a new value at each visit) and none disagreed; one disagreement settles
 * it the other way for good, so a listing's `page` or a real facet is never dropped from the keys.
 */
const AGREEING_URLS = 2;
const AGREEING_TESTS = 3;
/** URLs remembered per host while their parameters are on test. */
const MAX_PENDING = 256;

interface Pending {
  readonly value: string;
  readonly own: Fingerprint;
}

export class ParamLearner {
  readonly #similarity: number;
  /** Parameters found not to matter (lower-case names). */
  readonly ignored = new Set<string>();
  /** Parameters found to matter: no longer tested. */
  readonly #relevant = new Set<string>();
  /** Agreeing tests per parameter, and the URLs (without the parameter) they were on. */
  readonly #agreed = new Map<string, { tests: number; urls: Set<string> }>();
  readonly #pending = new LruMap<string, Pending>(MAX_PENDING);

  constructor(similarity: number) {
    this.#similarity = similarity;
  }

  /** Whether any parameter of this query is still on test (the page then needs a fingerprint). */
  testing(pairs: readonly (readonly [string, string])[]): boolean {
    return pairs.some(([name]) => !this.ignored.has(name) && !this.#relevant.has(name));
  }

  /**
   * Takes a page's query (lower-case names, raw values; session ids and ignored ones already
   * out) and own text; returns the parameters learned by it.
   */
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
