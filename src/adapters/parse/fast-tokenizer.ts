/**
 * htmlparser2's Tokenizer skipping text to the next `<` or `&` with one native `indexOf`: its
 * per-character loop was the crawler's largest cost (docs/history.md). Events stay the stock
 * ones (test/unit/fast-tokenizer.test.ts). It leans on internals checked once at load; if
 * they changed, FastTokenizer is the stock Tokenizer.
 */
import { Tokenizer } from 'htmlparser2';

const LT = 0x3c;
const AMP = 0x26;
const DQUOTE = 0x22;
const SQUOTE = 0x27;

/** htmlparser2 10.x. */
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

const AMP_SLOT = 0;
const SLOT_OF: Readonly<Record<number, number>> = { [LT]: 1, [DQUOTE]: 2, [SQUOTE]: 3 };

/**
 * Cached per character: searching again for the farther of two from every stop would be
 * quadratic on `a&a&a&…` (docs/hardening.md).
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

/** Jumps to just before the next `stop` or `&`: the tokenizer's loop increments the index. */
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

export const fastTokenizerActive = shapeKnown;
