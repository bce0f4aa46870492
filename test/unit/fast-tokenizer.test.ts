import { type Handler, Parser, Tokenizer } from 'htmlparser2';
import { describe, expect, it, vi } from 'vitest';
import { FastTokenizer, fastTokenizerActive } from '../../src/adapters/parse/fast-tokenizer.js';
import { seededRandom } from '../helpers/knee-sim.js';

/** Every callback the parser makes, with its arguments and the parser's offsets at the time. */
function events(html: string, tokenizer: typeof Tokenizer, chunks: readonly number[] = []): unknown[] {
  const out: unknown[] = [];
  let parser: Parser;
  const record =
    (name: string) =>
    (...args: unknown[]) =>
      out.push([name, parser.startIndex, parser.endIndex, ...args]);
  const handler: Partial<Handler> = {
    onopentagname: record('opentagname'),
    onattribute: record('attribute'),
    onopentag: record('opentag'),
    onclosetag: record('closetag'),
    ontext: record('text'),
    oncomment: record('comment'),
    oncommentend: record('commentend'),
    oncdatastart: record('cdatastart'),
    oncdataend: record('cdataend'),
    onprocessinginstruction: record('pi'),
    onend: record('end'),
  };
  parser = new Parser(handler, { Tokenizer: tokenizer });
  let at = 0;
  for (const cut of chunks) {
    parser.write(html.slice(at, cut));
    at = cut;
  }
  parser.end(html.slice(at));
  return out;
}

/** Pieces whose edges the skips must get right: entities, quotes, raw text, comment-likes. */
const FRAGMENTS = [
  'plain text with no markup at all ',
  'a & b',
  'x &amp; y &lt;z&gt; &#65;&#x42; &#67 &copy &bogus; &',
  'é ü 漢字 \u{1F600} ',
  '<',
  '< not a tag',
  'a<b',
  '<p>',
  '</p>',
  '<P CLASS="Lead">',
  '<br/>',
  '<img src=x.png alt=a&amp;b>',
  '<a href="/x?a=1&amp;b=2">',
  "<a href='/y?c=3&d=4' title='it\"s'>",
  '<a href="unterminated',
  '<a href=>',
  '</a>',
  '<h1 class="title">Product &quot;1&quot;</h1>',
  '<span class=price>$1,000.50</span>',
  '<!-- a comment with <a href="/no"> and -- inside -->',
  '<!--->',
  '<!-- unterminated',
  '<![CDATA[ x < y ]]>',
  '<?xml version="1.0"?>',
  '<!DOCTYPE html>',
  '<script>if (a < b && c) { s = "</scr" + "ipt>"; }</script>',
  '<style>a > b { content: "&amp;" }</style>',
  '<title>A &amp; B < C</title>',
  '<textarea><a href="/t">&lt;</textarea>',
  '<div\ndata-x = "1"\tdata-y\n>',
  '\n\n   \t',
  '&#0; &#xD800; &#1114112;',
];

function document(random: () => number): string {
  const n = 1 + Math.floor(random() * 30);
  let html = '';
  for (let i = 0; i < n; i++) html += FRAGMENTS[Math.floor(random() * FRAGMENTS.length)];
  return html;
}

describe('FastTokenizer', () => {
  it('replaces the stock methods with the installed htmlparser2 (else the crawler runs slower)', () => {
    expect(fastTokenizerActive).toBe(true);
    const stateText = (t: typeof Tokenizer) => (t.prototype as unknown as Record<string, unknown>).stateText;
    expect(stateText(FastTokenizer)).not.toBe(stateText(Tokenizer));
  });

  it('makes the same callbacks at the same offsets as the stock tokenizer on generated HTML', () => {
    const random = seededRandom(7);
    for (let i = 0; i < 3000; i++) {
      const html = document(random);
      expect(events(html, FastTokenizer), html).toEqual(events(html, Tokenizer));
    }
  });

  it('does so when the document arrives in chunks split anywhere', () => {
    const random = seededRandom(11);
    for (let i = 0; i < 1000; i++) {
      const html = document(random);
      const cuts = Array.from({ length: 1 + Math.floor(random() * 4) }, () =>
        Math.floor(random() * html.length),
      ).sort((a, b) => a - b);
      expect(events(html, FastTokenizer, cuts), JSON.stringify({ html, cuts })).toEqual(
        events(html, Tokenizer, cuts),
      );
    }
  });

  it('searches each part of a page a bounded number of times, on pages built to make it repeat', () => {
    // Hostile pages must not make parsing quadratic: a skip looks for two characters and
    // jumps to the nearer, so a search for the farther one must not be redone at every stop.
    const n = 100_000;
    const pages = {
      'entities, no tag': 'a&'.repeat(n / 2),
      'entities in a long attribute': `<a href="${'&a'.repeat(n / 2)}">`,
      'single-quoted, no close': `<a href='${'x&'.repeat(n / 2)}`,
      'tags, no entity': '<b>x</b>'.repeat(n / 8),
      'text, nothing else': 'x'.repeat(n),
    };
    const indexOf = String.prototype.indexOf;
    for (const [what, html] of Object.entries(pages)) {
      let scanned = 0;
      const spy = vi.spyOn(String.prototype, 'indexOf').mockImplementation(function (
        this: string,
        search: string,
        from?: number,
      ) {
        const at = indexOf.call(this, search, from);
        if (this === html) scanned += (at === -1 ? this.length : at) - (from ?? 0);
        return at;
      });
      try {
        new Parser({}, { Tokenizer: FastTokenizer }).end(html);
      } finally {
        spy.mockRestore();
      }
      expect(scanned, what).toBeLessThanOrEqual(4 * html.length);
    }
  });

  it('finds an & after many text runs (the cached search is not stale)', () => {
    const html = `${'<b>x</b> '.repeat(200)}tail &amp; end <i>&lt;</i>`;
    const fast = events(html, FastTokenizer);
    expect(fast).toEqual(events(html, Tokenizer));
    expect(fast).toContainEqual(expect.arrayContaining(['text', '&']));
  });
});
