import { alike } from './alike.js';
import type { Fingerprint } from './fingerprint.js';

/**
 * A URL pattern watched for an endless series, on sampled pages (fewer as it grows). A series is deep: alike pages
 * all found at one depth are a finite family listed above them, and are not stopped.
 */
const RESAMPLE_FIRST = 16;
const RESAMPLE_MAX = 256;

function resampleEvery(pages: number): number {
  let every = RESAMPLE_FIRST;
  while (every < RESAMPLE_MAX && pages >= every * 16) every *= 2;
  return every;
}
/** `/reviews/#/` on a site without reviews. */
const SOFT_404_RUN = 3;

export class SeriesWatch {
  #pages = 0;
  #soft404s = 0;
  readonly #samples: Fingerprint[] = [];
  readonly #depths: number[] = [];
  readonly #judged: boolean[] = [];
  readonly #sample: number;
  readonly #similarity: number;

  constructor(sample: number, similarity: number) {
    this.#sample = sample;
    this.#similarity = similarity;
  }

  soft404(): boolean {
    if (this.#pages > 0) return false;
    this.#soft404s++;
    return this.#soft404s >= SOFT_404_RUN;
  }

  /** A page from a depth the samples lack is sampled: it may make them a series. */
  nextSampled(depth: number): boolean {
    this.#pages++;
    if (this.#pages === 1) return false;
    if (this.#pages <= this.#sample + 1 || this.#pages % resampleEvery(this.#pages) === 0) return true;
    return !this.#depths.includes(depth);
  }

  /** A series: three quarters of the judged samples alike an earlier one, not all at one depth. */
  add(own: Fingerprint, depth: number): boolean {
    if (this.#samples.length > 0) {
      this.#judged.push(this.#samples.some((s) => alike(own, s, this.#similarity)));
      if (this.#judged.length > this.#sample - 1) this.#judged.shift();
    }
    this.#samples.push(own);
    this.#depths.push(depth);
    if (this.#samples.length > this.#sample) {
      this.#samples.shift();
      this.#depths.shift();
    }
    if (this.#judged.length < this.#sample - 1) return false;
    if (this.#depths.every((d) => d === depth)) return false;
    return this.#alike();
  }

  flatDepth(): number | undefined {
    if (this.#judged.length < this.#sample - 1) return undefined;
    const depth = this.#depths[0] as number;
    return this.#depths.every((d) => d === depth) && this.#alike() ? depth : undefined;
  }

  #alike(): boolean {
    const dups = this.#judged.filter(Boolean).length;
    return dups >= Math.ceil(0.75 * this.#judged.length);
  }
}
