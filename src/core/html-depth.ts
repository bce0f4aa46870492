/**
 * A linear pre-scan for the nesting depth htmlparser2 would build: its stack costs O(depth × tags), so a deeply
 * nested page blocks the event loop for minutes. Mirrors the parser's stack rules so a page cannot look shallow here.
 */

/** Browsers stop nesting at 512. */
export const MAX_HTML_DEPTH = 1_000;

const VOID = new Set([
  'area',
  'base',
  'basefont',
  'br',
  'col',
  'command',
  'embed',
  'frame',
  'hr',
  'img',
  'input',
  'isindex',
  'keygen',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);

const P = new Set(['p']);
const FORM = new Set(['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea']);
const DDT = new Set(['dd', 'dt']);
const RTP = new Set(['rt', 'rp']);
const SECTIONS = new Set(['thead', 'tbody']);
/** htmlparser2's openImpliesClose. */
const IMPLIES_CLOSE = new Map<string, ReadonlySet<string>>([
  ['tr', new Set(['tr', 'th', 'td'])],
  ['th', new Set(['th'])],
  ['td', new Set(['thead', 'th', 'td'])],
  ['body', new Set(['head', 'link', 'script'])],
  ['li', new Set(['li'])],
  ['option', new Set(['option'])],
  ['optgroup', new Set(['optgroup', 'option'])],
  ['dd', DDT],
  ['dt', DDT],
  ['rt', RTP],
  ['rp', RTP],
  ['tbody', SECTIONS],
  ['tfoot', SECTIONS],
  ...['select', 'input', 'output', 'button', 'datalist', 'textarea'].map((t) => [t, FORM] as const),
  ...[
    'p',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'address',
    'article',
    'aside',
    'blockquote',
    'details',
    'div',
    'dl',
    'fieldset',
    'figcaption',
    'figure',
    'footer',
    'form',
    'header',
    'hr',
    'main',
    'nav',
    'ol',
    'pre',
    'section',
    'table',
    'ul',
  ].map((t) => [t, P] as const),
]);
const FOREIGN = new Set(['math', 'svg']);
const INTEGRATION = new Set([
  'mi',
  'mo',
  'mn',
  'ms',
  'mtext',
  'annotation-xml',
  'foreignobject',
  'desc',
  'title',
]);
const RAW_TEXT = new Set(['script', 'style', 'title', 'textarea', 'xmp']);

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;

function isAlpha(c: number | undefined): boolean {
  return c !== undefined && ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a));
}

function isNameEnd(c: number | undefined): boolean {
  return (
    c === undefined ||
    c === 0x20 ||
    c === 0x09 ||
    c === 0x0a ||
    c === 0x0c ||
    c === 0x0d ||
    c === SLASH ||
    c === GT
  );
}

/** Each name's positions are kept, so an end tag finds its match in O(1). */
class Stack {
  readonly #names: string[] = [];
  readonly #positions = new Map<string, number[]>();

  get depth(): number {
    return this.#names.length;
  }

  top(): string | undefined {
    return this.#names[this.#names.length - 1];
  }

  push(name: string): void {
    let at = this.#positions.get(name);
    if (!at) {
      at = [];
      this.#positions.set(name, at);
    }
    at.push(this.#names.length);
    this.#names.push(name);
  }

  pop(): void {
    const name = this.#names.pop();
    if (name !== undefined) this.#positions.get(name)?.pop();
  }

  popTo(name: string): boolean {
    const at = this.#positions.get(name);
    const pos = at?.[at.length - 1];
    if (pos === undefined) return false;
    while (this.#names.length > pos) this.pop();
    return true;
  }
}

function skipMarkup(buf: Buffer, lt: number): number | undefined {
  const c = buf[lt + 1];
  if (c === 0x21 /* ! */) {
    const isComment = buf[lt + 2] === 0x2d && buf[lt + 3] === 0x2d;
    const end = isComment ? buf.indexOf('-->', lt + 4) : buf.indexOf(GT, lt + 2);
    return end === -1 ? buf.length : end + (isComment ? 3 : 1);
  }
  if (c === 0x3f /* ? */) {
    const end = buf.indexOf(GT, lt + 2);
    return end === -1 ? buf.length : end + 1;
  }
  return undefined;
}

function tagEnd(buf: Buffer, nameEnd: number): number {
  const n = buf.length;
  // Attribute values may hold '>' inside quotes; indexOf (C++) does the common case.
  let j = buf.indexOf(GT, nameEnd);
  if (j === -1) j = n;
  const attrs = buf.subarray(nameEnd, j);
  if (attrs.indexOf(0x22) !== -1 || attrs.indexOf(0x27) !== -1) {
    let quote = 0;
    for (j = nameEnd; j < n; j++) {
      const b = buf[j]!;
      if (quote !== 0) {
        if (b === quote) quote = 0;
      } else if (b === 0x22 || b === 0x27) {
        quote = b;
      } else if (b === GT) {
        break;
      }
    }
  }
  return j;
}

function rawTextEnd(buf: Buffer, from: number, name: string): number {
  let k = from;
  for (;;) {
    const end = buf.indexOf('</', k);
    if (end === -1) return buf.length;
    if (buf.toString('latin1', end + 2, end + 2 + name.length).toLowerCase() === name) return end;
    k = end + 2;
  }
}

/** Stops at the first depth above `limit`. */
export function htmlNestingDepth(body: Uint8Array, limit = MAX_HTML_DEPTH): number {
  const buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const stack = new Stack();
  /** htmlparser2's foreignContext: self-closing counts only while its top is true. */
  const foreign: boolean[] = [];
  let max = 0;
  let i = 0;
  const n = buf.length;
  while (i < n) {
    const lt = buf.indexOf(LT, i);
    if (lt === -1) break;
    const afterMarkup = skipMarkup(buf, lt);
    if (afterMarkup !== undefined) {
      i = afterMarkup;
      continue;
    }
    const closing = buf[lt + 1] === SLASH;
    const nameStart = closing ? lt + 2 : lt + 1;
    if (!isAlpha(buf[nameStart])) {
      i = lt + 1;
      continue;
    }
    let nameEnd = nameStart + 1;
    while (!isNameEnd(buf[nameEnd])) nameEnd++;
    const name = buf.toString('latin1', nameStart, nameEnd).toLowerCase();
    const j = tagEnd(buf, nameEnd);
    const selfClosing = buf[j - 1] === SLASH && j - 1 >= nameEnd;
    i = j + 1;

    if (closing) {
      if (FOREIGN.has(name) || INTEGRATION.has(name)) foreign.pop();
      // A stray </p> or </br> opens and closes that element on the spot.
      const popped = !VOID.has(name) && stack.popTo(name);
      if (!popped && (name === 'p' || name === 'br')) max = Math.max(max, stack.depth + 1);
      continue;
    }
    const implied = IMPLIES_CLOSE.get(name);
    if (implied) while (stack.depth > 0 && implied.has(stack.top()!)) stack.pop();
    if (VOID.has(name)) continue;
    stack.push(name);
    if (FOREIGN.has(name)) foreign.push(true);
    else if (INTEGRATION.has(name)) foreign.push(false);
    if (stack.depth > max) {
      max = stack.depth;
      if (max > limit) return max;
    }
    if (selfClosing && foreign[foreign.length - 1] === true) {
      // As htmlparser2's closeCurrentTag, which leaves foreignContext as it is.
      stack.pop();
      continue;
    }
    if (RAW_TEXT.has(name) && !selfClosing) i = rawTextEnd(buf, i, name);
  }
  return max;
}
