import { describe, expect, it } from 'vitest';
import { alike, containment, ownText } from '../../../src/core/traps/alike.js';
import {
  decodeFingerprint,
  encodeFingerprint,
  fingerprint,
  resemblance,
} from '../../../src/core/traps/fingerprint.js';

const fp = (html: string) => fingerprint(Buffer.from(html));

describe('page fingerprints (word sets of the visible text)', () => {
  it('reads text only: markup, comments, script, style and template are not words', () => {
    const a = fp(
      '<p>red fox</p><script>var hidden = 1</script><style>.x{}</style><!-- secret --><template>t</template>',
    );
    expect(a).toEqual(fp('red   FOX'));
    expect(a.length).toBe(2);
    expect(fp('<SCRIPT type="x">a b c</SCRIPT>d')).toEqual(fp('d'));
  });

  it('splits words on entities and keeps non-ASCII words whole', () => {
    expect(fp('salt&amp;pepper')).toEqual(fp('salt pepper'));
    expect(fp('café crème')).toEqual(fp('CAFÉ crème'.replace('CAFÉ', 'CAFé')));
    expect(fp('Ünïcode').length).toBe(1);
  });

  it('reads numbers as words: pages that say only their number are different pages', () => {
    expect(resemblance(fp('<h1>page 700</h1>'), fp('<h1>page 701</h1>'))).toBeCloseTo(1 / 3);
    const d5 = fp(
      '<h1>Events on 5 December 2026</h1><p>No events are planned on this day, check back soon</p>',
    );
    const d6 = fp(
      '<h1>Events on 6 December 2026</h1><p>No events are planned on this day, check back soon</p>',
    );
    expect(resemblance(d5, d6)).toBeGreaterThan(0.8);
  });

  it('round-trips through its stored form and refuses anything else', () => {
    const a = fp('one two three four five');
    expect(decodeFingerprint(encodeFingerprint(a))).toEqual(a);
    expect(decodeFingerprint('AAA')).toBeUndefined();
    expect(decodeFingerprint(Buffer.from([2, 0, 0, 0, 1, 0, 0, 0]).toString('base64'))).toBeUndefined();
  });
});

describe('own text and near-duplicates', () => {
  const template = 'Trap Shop home products help contact footer address customer service monday friday';
  const page = (own: string) => fp(`<nav>${template}</nav><main>${own}</main>`);

  it('takes the host template out of a page', () => {
    const ref = page('welcome to our shop');
    expect(ownText(page('sturdy kettle steel'), ref)).toEqual(fp('sturdy kettle steel'));
  });

  it('calls two own texts alike by their resemblance, never by a count of words', () => {
    expect(alike(fp('a b c d e f g h i j'), fp('a b c d e f g h i k'), 0.8)).toBe(true);
    expect(alike(fp('a b c d e f g h i j'), fp('a b c d e f g h i k'), 0.9)).toBe(false);
    // Short own texts that differ in a word: "page 700", "page 701" (their template taken out).
    expect(alike(fp('700'), fp('701'), 0.8)).toBe(false);
    expect(alike(fp('kettle 41 97'), fp('lamp 12 50'), 0.8)).toBe(false);
    // No own text (all of it on the host's first page): nothing to go by.
    expect(alike(fp(''), fp(''), 0.8)).toBe(false);
  });

  it('measures containment', () => {
    expect(containment(fp('not found'), fp('sorry page not found'))).toBe(1);
    expect(containment(fp('sorry page not found'), fp('not found'))).toBe(0.5);
    expect(containment(fp(''), fp('x'))).toBe(1);
  });
});
