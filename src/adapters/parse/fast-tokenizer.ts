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
  /** Ours: per slot, where the next character of `searchIn` is at or after searchFrom (-1: none). */
  searchAt: number[];
  searchFrom: number[];
  searchIn: string | undefined;
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

/** Slots of the search cache, one per character searched for. */
const AMP_SLOT = 0;
const SLOT_OF: Readonly<Record<number, number>> = { [LT]: 1, [DQUOTE]: 2, [SQUOTE]: 3 };

/**
 * The buffer index of the next `ch` at or after `from`, or the buffer's length. Cached per
 * character: a skip searches for two characters and jumps to the nearer, and searching again
 * for the farther one from every stop would be quadratic (`a&a&a&…` with no `<`: 2 MB took
 * 9.6 s instead of 45 ms). With the cache each character's search passes over the buffer once.
 */
function nextOf(t: Internals, slot: number, ch: string, from: number): number {
  const buf = t.buffer;
  if (t.searchIn !== buf) {
    t.searchIn = buf;
    t.searchFrom.fill(Number.POSITIVE_INFINITY);
  }
  const at = t.searchAt[slot]!;
  if (from < t.searchFrom[slot]! || (at !== -1 && from > at)) {
    t.searchFrom[slot] = from;
    t.searchAt[slot] = buf.indexOf(ch, from);
  }
  const next = t.searchAt[slot]!;
  return next === -1 ? buf.length : next;
}

/**
 * Wraps a state function that, when entities are decoded, stops only at `stop` and `&`: any other
 * character jumps to just before the next of those two (or the buffer's end), where the
 * tokenizer's loop, which increments the index after each state call, resumes.
 */
function skipping(base: Method, stop: number): Method {
  const stopChar = String.fromCharCode(stop);
  const slot = SLOT_OF[stop]!;
  return function (this: Internals, c: number): void {
    if (c === stop || c === AMP || !this.decodeEntities) {
      base.call(this, c);
      return;
    }
    const from = this.index - this.offset;
    const next = Math.min(nextOf(this, slot, stopChar, from), nextOf(this, AMP_SLOT, '&', from));
    // Never backwards: a stale search would make the tokenizer loop for ever.
    if (next <= from) {
      base.call(this, c);
      return;
    }
    this.index = next - 1 + this.offset;
  };
}

export class FastTokenizer extends Tokenizer {
  // Declared here so every instance has the same shape from the start (see nextOf).
  searchAt = [-1, -1, -1, -1];
  searchFrom = [0, 0, 0, 0];
  searchIn: string | undefined = undefined;
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
