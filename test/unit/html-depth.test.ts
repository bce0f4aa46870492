import { Parser } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import { isHtmlType } from '../../src/adapters/parse/field-values.js';
import { htmlNestingDepth, MAX_HTML_DEPTH } from '../../src/core/html-depth.js';

/** The open-element depth htmlparser2 itself reaches (void elements are leaves, not levels). */
function parserDepth(html: string): number {
  const voids = new Set(['br', 'img', 'input', 'hr', 'meta', 'link']);
  let depth = 0;
  let max = 0;
  const parser = new Parser({
    onopentag(name) {
      if (voids.has(name)) return;
      depth++;
      max = Math.max(max, depth);
    },
    onclosetag(name) {
      if (!voids.has(name)) depth--;
    },
  });
  parser.end(html);
  return max;
}

const depth = (html: string, limit = 1_000_000) => htmlNestingDepth(Buffer.from(html), limit);

describe('htmlNestingDepth', () => {
  it.each([
    ['plain nesting', '<html><body><div><p>x</p><ul><li>a<li>b</ul></div></body></html>'],
    [
      'implied closes keep lists and tables flat',
      `<table>${'<tr><td>x<td>y'.repeat(200)}</table><ul>${'<li>x'.repeat(200)}</ul>`,
    ],
    ['implied closes that still nest', '<p>x<li>y<td>z<tr>'.repeat(50)],
    ['an end tag pops to its innermost match', `${'<div><span><b>'.repeat(30)}${'</div>'.repeat(30)}`],
    ['stray end tags are ignored', `${'<div></b></i>'.repeat(40)}`],
    [
      'self-closing counts only in svg and math',
      `${'<div/>'.repeat(30)}<svg>${'<path d="M0 0"/>'.repeat(100)}</svg>`,
    ],
    [
      'integration points leave svg context',
      `<svg><foreignObject>${'<div/>'.repeat(25)}</foreignObject></svg>`,
    ],
    ['a stray </desc> leaves svg context in the parser too', `<svg></desc>${'<div/>'.repeat(25)}`],
    ['raw text hides tags', `<script>${'<div>'.repeat(100)}</script><style>${'<b>'.repeat(100)}</STYLE><p>`],
    ['comments hide tags', `<!-- ${'<div>'.repeat(100)} --><p>x</p>`],
    ['quoted ">" inside attributes', `${'<div title="a>b" data-x=\'>\'>'.repeat(20)}`],
    ['upper case names', `${'<DIV><Span>'.repeat(20)}${'</div>'.repeat(20)}`],
  ])('agrees with htmlparser2 on %s', (_what, html) => {
    expect(depth(html)).toBe(parserDepth(html));
  });

  it('stops at the first depth past the limit, in linear time', () => {
    const deep = Buffer.from(`${'<div>'.repeat(500_000)}${'</div>'.repeat(500_000)}`);
    expect(htmlNestingDepth(deep, 1_000)).toBe(1_001);
    // Lots of tags, none nested: scanned to the end.
    const flat = Buffer.from('<span>x</span>'.repeat(200_000));
    expect(htmlNestingDepth(flat)).toBe(1);
  });

  it('reads only the bytes of its view', () => {
    const whole = Buffer.from(`<div><div>${'<b>'.repeat(10)}`);
    expect(htmlNestingDepth(whole.subarray(0, 10))).toBe(2);
  });

  it('defaults to the 1000 limit and knows the HTML media types', () => {
    expect(MAX_HTML_DEPTH).toBe(1_000);
    expect(depth('<div>'.repeat(2_000), MAX_HTML_DEPTH)).toBe(MAX_HTML_DEPTH + 1);
    expect(isHtmlType('text/html; charset=utf-8')).toBe(true);
    expect(isHtmlType('application/xhtml+xml')).toBe(true);
    expect(isHtmlType('application/json')).toBe(false);
    expect(isHtmlType('')).toBe(false);
  });
});
