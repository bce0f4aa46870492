import { containment } from './alike.js';
import type { Fingerprint } from './fingerprint.js';

/** A host's answer for a path that cannot exist, from one probe; a page like it (same bytes, own text or redirect) is a soft 404. */
export type Soft404 =
  | { readonly kind: 'unknown' }
  | { readonly kind: 'probing' }
  | { readonly kind: 'none' }
  | { readonly kind: 'page'; readonly hash: string; readonly own: Fingerprint }
  | { readonly kind: 'redirect'; readonly target: string };

const MESSAGE_CONTAINED = 0.6;
const MOSTLY_MESSAGE = 0.5;
/** Own text this small says nothing: only identical bytes count. */
const MIN_MESSAGE = 2;

export interface Soft404Page {
  readonly url: string;
  readonly finalUrl: string;
  readonly contentHash: string;
}

export function isSoft404(s: Soft404, page: Soft404Page, fp: () => { own: Fingerprint }): boolean {
  if (s.kind === 'redirect') return page.finalUrl === s.target && page.url !== s.target;
  if (s.kind !== 'page') return false;
  if (page.contentHash === s.hash) return true;
  if (s.own.length < MIN_MESSAGE) return false;
  const { own } = fp();
  return containment(s.own, own) >= MESSAGE_CONTAINED && containment(own, s.own) >= MOSTLY_MESSAGE;
}
