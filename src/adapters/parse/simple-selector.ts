/**
 * The CSS subset matched without a DOM: tag, `#id`, `.class`, `[attr]`, `[attr=value]`; anything
 * else needs the tree (undefined: cheerio). Case rules follow css-select in HTML mode.
 */

export type Attribs = Record<string, string>;

interface AttrTest {
  readonly name: string;
  /** undefined: presence only. */
  readonly value: string | undefined;
  readonly ignoreCase: boolean;
}

interface Compound {
  readonly tag: string | undefined;
  readonly id: string | undefined;
  readonly classes: readonly RegExp[];
  readonly attrs: readonly AttrTest[];
}

export interface SimpleSelector {
  /** Tags that can match, or undefined when some alternative matches any tag. */
  readonly tags: ReadonlySet<string> | undefined;
  matches(tag: string, attribs: Attribs): boolean;
}

/** From css-select (attributes.js): attribute values compared case-insensitively in HTML. */
const CASE_INSENSITIVE_ATTRIBUTES = new Set(
  (
    'accept accept-charset align alink axis bgcolor charset checked clear codetype color compact ' +
    'declare defer dir direction disabled enctype face frame hreflang http-equiv lang language link ' +
    'media method multiple nohref noresize noshade nowrap readonly rel rev rules scope scrolling ' +
    'selected shape target text type valign valuetype vlink'
  ).split(' '),
);

const IDENT = '-?[A-Za-z_][A-Za-z0-9_-]*';
const TAG = '[A-Za-z][A-Za-z0-9-]*';
const VALUE = `(?:${IDENT}|[0-9][A-Za-z0-9_-]*|"[^"\\\\\\n]*"|'[^'\\\\\\n]*')`;
const COMPOUND = new RegExp(`^(\\*|${TAG})?((?:#${IDENT}|\\.${IDENT}|\\[${IDENT}(?:=${VALUE})?\\])*)$`);
const PART = new RegExp(`#(${IDENT})|\\.(${IDENT})|\\[(${IDENT})(?:=(${VALUE}))?\\]`, 'g');

const escapeRegex = (s: string) => s.replace(/[-[\]{}()*+?.,\\^$|#\s]/g, '\\$&');

function parseCompound(text: string): Compound | undefined {
  const m = COMPOUND.exec(text);
  if (!m || text === '') return undefined;
  const tag = m[1] === undefined || m[1] === '*' ? undefined : m[1].toLowerCase();
  let id: string | undefined;
  const classes: RegExp[] = [];
  const attrs: AttrTest[] = [];
  for (const p of (m[2] ?? '').matchAll(PART)) {
    if (p[1] !== undefined) {
      // Two ids can never both match one element's single id attribute.
      if (id !== undefined && id !== p[1]) return undefined;
      id = p[1];
    } else if (p[2] !== undefined) {
      classes.push(new RegExp(`(?:^|\\s)${escapeRegex(p[2])}(?:$|\\s)`));
    } else if (p[3] !== undefined) {
      const name = p[3].toLowerCase();
      const raw = p[4];
      const value =
        raw === undefined ? undefined : raw.startsWith('"') || raw.startsWith("'") ? raw.slice(1, -1) : raw;
      const ignoreCase = CASE_INSENSITIVE_ATTRIBUTES.has(name);
      attrs.push({ name, value: ignoreCase ? value?.toLowerCase() : value, ignoreCase });
    }
  }
  return { tag, id, classes, attrs };
}

function matchCompound(c: Compound, tag: string, attribs: Attribs): boolean {
  if (c.tag !== undefined && c.tag !== tag) return false;
  if (c.id !== undefined && (!Object.hasOwn(attribs, 'id') || attribs.id !== c.id)) return false;
  if (c.classes.length > 0) {
    const cls = Object.hasOwn(attribs, 'class') ? attribs.class : undefined;
    if (cls === undefined) return false;
    for (const re of c.classes) if (!re.test(cls)) return false;
  }
  for (const a of c.attrs) {
    if (!Object.hasOwn(attribs, a.name)) return false;
    const v = attribs[a.name];
    if (v == null) return false;
    if (a.value === undefined) continue;
    if (a.ignoreCase ? v.length !== a.value.length || v.toLowerCase() !== a.value : v !== a.value)
      return false;
  }
  return true;
}

export function parseSimpleSelector(selector: string): SimpleSelector | undefined {
  const compounds: Compound[] = [];
  for (const part of selector.split(',')) {
    const c = parseCompound(part.trim());
    if (!c) return undefined;
    compounds.push(c);
  }
  const anyTag = compounds.some((c) => c.tag === undefined);
  const tags = anyTag ? undefined : new Set(compounds.map((c) => c.tag as string));
  if (compounds.length === 1) {
    const c = compounds[0] as Compound;
    return { tags, matches: (tag, attribs) => matchCompound(c, tag, attribs) };
  }
  return { tags, matches: (tag, attribs) => compounds.some((c) => matchCompound(c, tag, attribs)) };
}
