import { describe, expect, it } from 'vitest';
import { alike, containment, ownText } from '../../../src/core/traps/alike.js';
import {
  decodeFingerprint,
  encodeFingerprint,
  fingerprint,
  resemblance,
  urlNumbers,
} from '../../../src/core/traps/fingerprint.js';

const fp = (html: string, url?: string) =>
  fingerprint(Buffer.from(html), url === undefined ? undefined : urlNumbers(url));

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

  it('reads the numbers of its own URL as one word', () => {
    const d5 = fp('<h1>Events on 5 December 2026</h1>', 'http://s.test/events/2026/12/5/');
    const d6 = fp('<h1>Events on 6 December 2026</h1>', 'http://s.test/events/2026/12/6/');
    expect(resemblance(d5, d6)).toBe(1);
    // Numbers that are not in the URL stay: a listing's products keep its pages apart.
    const p2 = fp('Product 21 Product 22', 'http://s.test/list?page=2');
    const p3 = fp('Product 31 Product 32', 'http://s.test/list?page=3');
    expect(resemblance(p2, p3)).toBeLessThan(0.5);
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

  it('calls two own texts alike by resemblance, or by a couple of words however short they are', () => {
    expect(alike(fp('a b c d e f g h i j'), fp('a b c d e f g h i k'), 0.8)).toBe(true);
    expect(alike(fp('events december'), fp('events march'), 0.8)).toBe(true);
    expect(alike(fp('kettle 41 97'), fp('lamp 12 50'), 0.8)).toBe(false);
    expect(alike(fp(''), fp(''), 0.8)).toBe(true);
  });

  it('measures containment', () => {
    expect(containment(fp('not found'), fp('sorry page not found'))).toBe(1);
    expect(containment(fp('sorry page not found'), fp('not found'))).toBe(0.5);
    expect(containment(fp(''), fp('x'))).toBe(1);
  });
});
