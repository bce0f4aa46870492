import { type Fingerprint, intersectionSize, resemblance, without } from './fingerprint.js';

/** Pages compare on their own text, without the host's template (its first page's words). */

export function ownText(page: Fingerprint, reference: Fingerprint | undefined): Fingerprint {
  return without(page, reference);
}

/** Relative resemblance: pages whose own text is a word or two differ in most of it. */
export function alike(a: Fingerprint, b: Fingerprint, similarity: number): boolean {
  // No own text says nothing.
  if (a.length === 0 || b.length === 0) return false;
  return resemblance(a, b) >= similarity;
}

/** 1 for an empty part. */
export function containment(part: Fingerprint, whole: Fingerprint): number {
  return part.length === 0 ? 1 : intersectionSize(part, whole) / part.length;
}
