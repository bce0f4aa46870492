/**
 * htmlparser2's Tokenizer, with its skips done by `String.prototype.indexOf`.
 *
 * The stock tokenizer looks at every character of text in a JavaScript loop, to find the next
 * `<` (a tag) or `&` (an entity), and `fastForwardTo` is a charCodeAt loop too. On crawled pages,
 * mostly text, that loop was the crawler's largest single cost: 20% of all CPU on the demo site
 * (about 100 µs of a 15 KB page). Here a run of text that holds neither character is skipped in
 * one native search; the character that ends it goes through the stock state function, so the
 * events, their order and their offsets are the same as the stock tokenizer's
 * (test/unit/fast-tokenizer.test.ts compares both on generated HTML).
 *
 * The methods replaced are private in htmlparser2's types, so this leans on its internals: the
 * shape is checked once at load, and if it changed, FastTokenizer is the stock Tokenizer.
 */
import { Tokenizer } from 'htmlparser2';

const LT = 0x3c;
const AMP = 0x26;
const DQUOTE = 0x22;
const SQUOTE = 0x27;

/** What this file reads and replaces of htmlparser2's Tokenizer (10.x). */
interface Internals {
  buffer: string;
  index: number;
  offset: number;
  decodeEntities: boolean;
  /** Where the next `&` of `buffer` is at or after `ampFrom` (-1: none); cache of ours. */
  ampAt: number;
  ampFrom: number;
  ampIn: string | undefined;
  stateText(c: number): void;
  stateInAttributeValueDoubleQuotes(c: number): void;
  stateInAttributeValueSingleQuotes(c: number): void;
  fastForwardTo(c: number): boolean;
}

type Method = (this: Internals, c: number) => void;

const stock = Tokenizer.prototype as unknown as Partial<Record<keyof Internals, unknown>>;
const shapeKnown =
  typeof stock.stateText === 'function' &&
  typeof stock.stateInAttributeValueDoubleQuotes === 'function' &&
  typeof stock.stateInAttributeValueSingleQuotes === 'function' &&
  typeof stock.fastForwardTo === 'function' &&
  (() => {
    const t = new Tokenizer({}, {} as never) as unknown as Partial<Internals>;
    return typeof t.buffer === 'string' && typeof t.index === 'number' && typeof t.offset === 'number';
  })();

/**
 * The buffer index of the next `&` at or after `from`, or the buffer's length. Cached, since
 * text runs are many and `&` is rare: searching from each run to the end would be quadratic.
 */
function nextAmp(t: Internals, from: number): number {
  const buf = t.buffer;
  if (t.ampIn !== buf || from < t.ampFrom || (t.ampAt !== -1 && from > t.ampAt)) {
    t.ampIn = buf;
    t.ampFrom = from;
    t.ampAt = buf.indexOf('&', from);
  }
  return t.ampAt === -1 ? buf.length : t.ampAt;
}

/**
 * Wraps a state function that, when entities are decoded, stops only at `stop` and `&`: any other
 * character jumps to just before the next of those two (or the buffer's end), where the
 * tokenizer's loop, which increments the index after each state call, resumes.
 */
function skipping(base: Method, stop: number): Method {
  const stopChar = String.fromCharCode(stop);
  return function (this: Internals, c: number): void {
    if (c === stop || c === AMP || !this.decodeEntities) {
      base.call(this, c);
      return;
    }
    const buf = this.buffer;
    const from = this.index - this.offset;
    let next = buf.indexOf(stopChar, from);
    if (next === -1) next = buf.length;
    next = Math.min(next, nextAmp(this, from));
    // Never backwards: a stale search would make the tokenizer loop for ever.
    if (next <= from) {
      base.call(this, c);
      return;
    }
    this.index = next - 1 + this.offset;
  };
}

export class FastTokenizer extends Tokenizer {
  // Declared here so every instance has the same shape from the start (see nextAmp).
  ampAt = -1;
  ampFrom = 0;
  ampIn: string | undefined = undefined;
}

if (shapeKnown) {
  const proto = FastTokenizer.prototype as unknown as Internals;
  const base = stock as unknown as Internals;
  proto.stateText = skipping(base.stateText, LT);
  proto.stateInAttributeValueDoubleQuotes = skipping(base.stateInAttributeValueDoubleQuotes, DQUOTE);
  proto.stateInAttributeValueSingleQuotes = skipping(base.stateInAttributeValueSingleQuotes, SQUOTE);
  proto.fastForwardTo = function (this: Internals, c: number): boolean {
    const at = this.buffer.indexOf(String.fromCharCode(c), this.index + 1 - this.offset);
    if (at !== -1) {
      this.index = at + this.offset;
      return true;
    }
    // As the stock method: the loop's increment then ends the buffer.
    this.index = this.buffer.length + this.offset - 1;
    return false;
  };
}

/** False when htmlparser2's internals were not the expected shape, so nothing was replaced. */
export const fastTokenizerActive = shapeKnown;
