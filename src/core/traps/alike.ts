import { type Fingerprint, intersectionSize, resemblance, without } from './fingerprint.js';

/**
 * Near-duplicate tests on fingerprints (fingerprint.ts). Pages are compared on their own text:
 * what is left of a page's sample once the host's reference page (its first page, which carries
 * the site's header, menus and footer) is taken out. Whole pages of a shop whose product pages
 * share 13 KB of template are near-duplicates by any measure; their own text is not.
 */

/** Two own texts this close (words in one and not the other) count as alike however short they are. */
const MAX_ABSOLUTE_DIFFERENCE = 2;

/** The page's own text: its sample without the hashes of the host's reference page. */
export function ownText(page: Fingerprint, reference: Fingerprint | undefined): Fingerprint {
  return without(page, reference);
}

/**
 * Whether two own-text samples are near-duplicates: their resemblance reaches `similarity`, or
 * they differ in at most a couple of sampled bigrams (two calendar months whose own text is a
 * month's name and a year).
 */
export function alike(a: Fingerprint, b: Fingerprint, similarity: number): boolean {
  if (resemblance(a, b) >= similarity) return true;
  const common = intersectionSize(a, b);
  return a.length + b.length - 2 * common <= MAX_ABSOLUTE_DIFFERENCE;
}

/** The share of `part`'s hashes that are in `whole` (1 for an empty part). */
export function containment(part: Fingerprint, whole: Fingerprint): number {
  return part.length === 0 ? 1 : intersectionSize(part, whole) / part.length;
}
