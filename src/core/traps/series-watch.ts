import { alike } from './alike.js';
import type { Fingerprint } from './fingerprint.js';

/**
 * One URL pattern of a host (url-pattern.ts) under watch for an endless series: the own text of
 * a sample of its pages, each judged against those before it. Its first page is not sampled
 * (most patterns have one page, and fingerprinting costs a scan of the body); pages 2 to
 * `sample` + 1 are, then one page in 16, one in 32 from page 256 and so on up to one in 256 (a
 * pattern of thousands of distinct pages, a shop's products, costs a few dozen scans), so a
 * pattern that turns into a series later (a calendar past its last event) is still seen.
 *
 * A series is deep: each of its pages leads to the next (a month to the next month, a facet to
 * a facet of it), so its pages are found at more than one link depth. Alike pages that were all
 * found at one depth are a finite family listed by the pages above them (Rust's SIMD types and
 * intrinsics, `i8x16` to `u64x8`, whose pages differ in a word or two) and are not stopped:
 * what they cost is bounded by the links already found.
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
  /** The last `sample` own-text samples, and the link depths their pages were found at. */
  readonly #samples: Fingerprint[] = [];
  readonly #depths: number[] = [];
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

  /**
   * Whether the next page of the pattern, found at `depth`, is to be fingerprinted; counts it as
   * seen. A page from a depth the samples do not have is: it may be what makes them a series.
   */
  nextSampled(depth: number): boolean {
    this.#pages++;
    if (this.#pages === 1) return false;
    if (this.#pages <= this.#sample + 1 || this.#pages % resampleEvery(this.#pages) === 0) return true;
    return !this.#depths.includes(depth);
  }

  /**
   * Takes a sampled page's own text and link depth; true when the pattern is a series: of its
   * last `sample` samples, at least three quarters of those judged were alike an earlier one,
   * and they were not all found at one depth.
   */
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

  /**
   * The depth a full sample of alike pages was all found at (a family the pages above list), if
   * it was: a page of the pattern found deeper would make it a series.
   */
  flatDepth(): number | undefined {
    if (this.#judged.length < this.#sample - 1) return undefined;
    const depth = this.#depths[0] as number;
    return this.#depths.every((d) => d === depth) && this.#alike() ? depth : undefined;
  }

  /** Three quarters of the judged samples were alike an earlier one. */
  #alike(): boolean {
    const dups = this.#judged.filter(Boolean).length;
    return dups >= Math.ceil(0.75 * this.#judged.length);
  }
}
