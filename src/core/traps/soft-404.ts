import { containment } from './alike.js';
import type { Fingerprint } from './fingerprint.js';

/**
 * What a host answers for a path that cannot exist, learned from one probe (a random path, as
 * Google's crawler asks): a real 404 (`none`: the host's statuses can be trusted), a page (its
 * content hash and fingerprint), or a redirect (where to). A page is a soft 404 when it is the
 * probe's page byte for byte; or when its own text (alike.ts) and the probe page's are mostly
 * each other's: it carries the "not found" message, and little else (the path a server echoes
 * differs); or when it was redirected where the probe was.
 */
export type Soft404 =
  | { readonly kind: 'unknown' }
  | { readonly kind: 'probing' }
  | { readonly kind: 'none' }
  | { readonly kind: 'page'; readonly hash: string; readonly own: Fingerprint }
  | { readonly kind: 'redirect'; readonly target: string };

/** The share of the probe page's own text a soft 404 must carry. */
const MESSAGE_CONTAINED = 0.6;
/** The share of a soft 404's own text that is the probe page's. */
const MOSTLY_MESSAGE = 0.5;
/** Own text this small says nothing: only a byte-identical page is then a soft 404. */
const MIN_MESSAGE = 2;

export interface Soft404Page {
  readonly url: string;
  readonly finalUrl: string;
  readonly contentHash: string;
}

/** Whether the page is like the host's answer for a missing path. `fp` is asked only if needed. */
export function isSoft404(s: Soft404, page: Soft404Page, fp: () => { own: Fingerprint }): boolean {
  if (s.kind === 'redirect') return page.finalUrl === s.target && page.url !== s.target;
  if (s.kind !== 'page') return false;
  if (page.contentHash === s.hash) return true;
  if (s.own.length < MIN_MESSAGE) return false;
  const { own } = fp();
  return containment(s.own, own) >= MESSAGE_CONTAINED && containment(own, s.own) >= MOSTLY_MESSAGE;
}
