import { ASCII_WHITESPACE } from '../../core/ascii-whitespace.js';
import { documentBase, resolveLink } from './field-values.js';

type Attribs = Readonly<Record<string, string | undefined>>;

/** `rel` is a set of tokens split on ASCII whitespace (not `\s`: U+00A0 is part of a token). */
const CANONICAL = new RegExp(`(^|${ASCII_WHITESPACE})canonical(${ASCII_WHITESPACE}|$)`, 'i');

/** Robots meta tags and `<link rel="canonical">`; both extractors feed it, so both report the same. */
export class PageMeta {
  readonly #names: readonly string[];
  readonly #robots: string[] = [];
  #canonical: string | undefined;

  constructor(names: readonly string[] | undefined) {
    this.#names = names ?? [];
  }

  /** Feeds one open tag (lower-case name and attribute names, as htmlparser2 gives them). */
  tag(name: string, attribs: Attribs): void {
    if (name === 'meta') {
      const n = attribs.name;
      const content = attribs.content;
      if (n !== undefined && content !== undefined && this.#names.includes(n.trim().toLowerCase()))
        this.#robots.push(content);
    } else if (name === 'link' && this.#canonical === undefined) {
      const rel = attribs.rel;
      if (rel !== undefined && attribs.href !== undefined && CANONICAL.test(rel))
        this.#canonical = attribs.href;
    }
  }

  result(pageUrl: string, baseHref: string | undefined): { robotsMeta?: string[]; canonicalUrl?: string } {
    const base = this.#canonical === undefined ? undefined : documentBase(pageUrl, baseHref);
    const canonicalUrl =
      base === undefined || this.#canonical === undefined ? undefined : resolveLink(this.#canonical, base);
    return {
      ...(this.#robots.length > 0 ? { robotsMeta: this.#robots } : {}),
      ...(canonicalUrl !== undefined ? { canonicalUrl } : {}),
    };
  }
}
