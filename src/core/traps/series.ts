import { alike } from './alike.js';
import type { Fingerprint } from './fingerprint.js';

/**
 * One URL pattern of a host (url-pattern.ts) under watch for an endless series: the own text of
 * a sample of its pages, each judged against those before it. Its first page is not sampled
 * (most patterns have one page, and fingerprinting costs a scan of the body); pages 2 to
 * `sample` + 1 are, then one page in 16, one in 32 from page 256 and so on up to one in 256 (a
 * pattern of thousands of distinct pages, a shop's products, costs a few dozen scans), so a
 * pattern that turns into a series later (a calendar past its last event) is still seen.
 */
const RESAMPLE_FIRST = 16;
const RESAMPLE_MAX = 256;

/** Of a pattern that has had `pages` pages, one in this many is sampled. */
function resampleEvery(pages: number): number {
  let every = RESAMPLE_FIRST;
  while (every < RESAMPLE_MAX && pages >= every * 16) every *= 2;
  return every;
}
/** Soft 404s in a row, with no other page of the pattern, that stop it (`/reviews/#/` on a site without reviews). */
const SOFT_404_RUN = 3;

export class SeriesWatch {
  /** Pages of the pattern seen (sampled or not). */
  #pages = 0;
  /** Soft 404s of the pattern while no other page of it was seen. */
  #soft404s = 0;
  /** The last `sample` own-text samples. */
  readonly #samples: Fingerprint[] = [];
  /** For each sample after the first: whether it was alike an earlier one. */
  readonly #judged: boolean[] = [];
  readonly #sample: number;
  readonly #similarity: number;

  constructor(sample: number, similarity: number) {
    this.#sample = sample;
    this.#similarity = similarity;
  }

  /** A soft 404 of the pattern: true when the pattern has had only those, SOFT_404_RUN of them. */
  soft404(): boolean {
    if (this.#pages > 0) return false;
    this.#soft404s++;
    return this.#soft404s >= SOFT_404_RUN;
  }

  /** Whether the next page of the pattern is to be fingerprinted; counts it as seen. */
  nextSampled(): boolean {
    this.#pages++;
    if (this.#pages === 1) return false;
    return this.#pages <= this.#sample + 1 || this.#pages % resampleEvery(this.#pages) === 0;
  }

  /**
   * Takes a sampled page's own text; true when the pattern is a series: of its last `sample`
   * samples, at least three quarters of those judged were alike an earlier one.
   */
  add(own: Fingerprint): boolean {
    if (this.#samples.length > 0) {
      this.#judged.push(this.#samples.some((s) => alike(own, s, this.#similarity)));
      if (this.#judged.length > this.#sample - 1) this.#judged.shift();
    }
    this.#samples.push(own);
    if (this.#samples.length > this.#sample) this.#samples.shift();
    if (this.#judged.length < this.#sample - 1) return false;
    const dups = this.#judged.filter(Boolean).length;
    return dups >= Math.ceil(0.75 * this.#judged.length);
  }
}
