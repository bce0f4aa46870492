import { type Fingerprint, intersectionSize, resemblance, without } from './fingerprint.js';

/**
 * Near-duplicate tests on fingerprints (fingerprint.ts). Pages are compared on their own text:
 * what is left of a page's sample once the host's reference page (its first page, which carries
 * the site's header, menus and footer) is taken out. Whole pages of a shop whose product pages
 * share 13 KB of template are near-duplicates by any measure; their own text is not.
 */

/** The page's own text: its words without those of the host's template. */
export function ownText(page: Fingerprint, reference: Fingerprint | undefined): Fingerprint {
  return without(page, reference);
}

/**
 * Whether two own texts are near-duplicates: their resemblance reaches `similarity`. Relative,
 * never absolute: pages whose own text is a word or two ("page 700", a price) differ in most of
 * it, and are different pages; pages with none are not alike.
 */
export function alike(a: Fingerprint, b: Fingerprint, similarity: number): boolean {
  // Pages with no text of their own (all of it in the host's template) say nothing about each other.
  if (a.length === 0 || b.length === 0) return false;
  return resemblance(a, b) >= similarity;
}

/** The share of `part`'s hashes that are in `whole` (1 for an empty part). */
export function containment(part: Fingerprint, whole: Fingerprint): number {
  return part.length === 0 ? 1 : intersectionSize(part, whole) / part.length;
}
