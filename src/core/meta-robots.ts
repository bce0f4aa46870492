/** `<meta name=robots>`, `<meta name=TOKEN>` and X-Robots-Tag, read as Google documents them; `none` = noindex, nofollow. */

export interface RobotsDirectives {
  readonly noindex: boolean;
  readonly nofollow: boolean;
}

export const NO_DIRECTIVES: RobotsDirectives = Object.freeze({ noindex: false, nofollow: false });

/** Anything else before a colon names a bot. */
const VALUED = new Set(['unavailable_after', 'max-snippet', 'max-image-preview', 'max-video-preview']);

function apply(acc: { noindex: boolean; nofollow: boolean }, directive: string): void {
  const d = directive.trim().toLowerCase();
  if (d === 'noindex' || d === 'none') acc.noindex = true;
  if (d === 'nofollow' || d === 'none') acc.nofollow = true;
}

export function parseMetaRobots(content: string, acc = { noindex: false, nofollow: false }) {
  for (const part of content.split(',')) apply(acc, part);
  return acc;
}

/** `BOT: directives` applies to that bot until the next prefix; unprefixed ones to all. */
export function parseXRobotsTag(header: string, token: string, acc = { noindex: false, nofollow: false }) {
  const me = token.toLowerCase();
  let agent: string | undefined;
  for (const raw of header.split(',')) {
    let part = raw.trim();
    const m = /^([A-Za-z0-9_.-]+)\s*:\s*(.*)$/.exec(part);
    if (m && !VALUED.has((m[1] ?? '').toLowerCase())) {
      agent = (m[1] ?? '').toLowerCase();
      part = m[2] ?? '';
    }
    if (agent === undefined || agent === me) apply(acc, part);
  }
  return acc;
}

export function pageDirectives(
  metaContents: readonly string[],
  xRobotsTag: string | undefined,
  token: string,
): RobotsDirectives {
  const acc = { noindex: false, nofollow: false };
  for (const c of metaContents) parseMetaRobots(c, acc);
  if (xRobotsTag !== undefined) parseXRobotsTag(xRobotsTag, token, acc);
  return acc;
}
