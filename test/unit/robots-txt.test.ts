import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  crawlDelayFor,
  isAllowedBy,
  normalisePath,
  parseRobotsTxt,
  pathParamsQuery,
  productToken,
  ROBOTS_MAX_LINE,
  robotsBodyText,
  robotsPaths,
} from '../../src/adapters/robots/robots-txt.js';

/** Allowed? for one robots.txt, one product token and one URL (as google/robotstxt's tests ask). */
const allowed = (txt: string, token: string, url: string) => isAllowedBy(parseRobotsTxt(txt), token, url);

/**
 * Conformance: RFC 9309's rules and the behaviour of Google's reference parser (robots.cc),
 * case by case as its robots_test.cc checks them. URLs are matched as given, as robots.cc
 * matches them (the caller percent-encodes: crawld passes the URL it requests, WHATWG-serialised).
 */
describe('robots.txt matching (RFC 9309, google/robotstxt)', () => {
  const F = 'http://foo.bar';

  it('line syntax: a missing colon is accepted for exactly two words; unknown keys are ignored', () => {
    expect(allowed('user-agent: FooBot\ndisallow: /\n', 'FooBot', `${F}/x/y`)).toBe(false);
    expect(allowed('foo: FooBot\nbar: /\n', 'FooBot', `${F}/x/y`)).toBe(true);
    expect(allowed('user-agent FooBot\ndisallow /\n', 'FooBot', `${F}/x/y`)).toBe(false);
    // Three words without a colon: not a line.
    expect(allowed('user-agent FooBot\ndisallow / x\n', 'FooBot', `${F}/x/y`)).toBe(true);
  });

  it('groups: consecutive user-agents share rules, same-agent groups merge, rules outside groups are ignored', () => {
    const txt = [
      'allow: /foo/bar/',
      '',
      'user-agent: FooBot',
      'disallow: /',
      'allow: /x/',
      'user-agent: BarBot',
      'disallow: /',
      'allow: /y/',
      '',
      '',
      'allow: /w/',
      'user-agent: BazBot',
      '',
      'user-agent: FooBot',
      'allow: /z/',
      'disallow: /',
    ].join('\n');
    expect(allowed(txt, 'FooBot', `${F}/x/b`)).toBe(true);
    expect(allowed(txt, 'FooBot', `${F}/z/d`)).toBe(true);
    expect(allowed(txt, 'FooBot', `${F}/y/c`)).toBe(false);
    expect(allowed(txt, 'BarBot', `${F}/y/c`)).toBe(true);
    expect(allowed(txt, 'BarBot', `${F}/w/a`)).toBe(true);
    expect(allowed(txt, 'BarBot', `${F}/z/d`)).toBe(false);
    expect(allowed(txt, 'BazBot', `${F}/z/d`)).toBe(true);
    for (const bot of ['FooBot', 'BarBot', 'BazBot']) expect(allowed(txt, bot, `${F}/foo/bar/`)).toBe(false);
  });

  it('keys in any case, and the typos the reference accepts', () => {
    for (const txt of [
      'USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n',
      'uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n',
      'useragent: FooBot\nallow: /x/\ndissallow: /\n',
      'user agent: FooBot\nallow: /x/\ndisalow: /\n',
    ]) {
      expect(allowed(txt, 'FooBot', `${F}/x/y`)).toBe(true);
      expect(allowed(txt, 'FooBot', `${F}/a/b`)).toBe(false);
    }
  });

  it('user-agent values: case-insensitive, compared up to the first character outside [A-Za-z_-] (space, /, version)', () => {
    for (const ua of ['FOO BAR', 'foo bar', 'FoO bAr', 'Foo/2.1', 'foo (+http://x)']) {
      const txt = `User-Agent: ${ua}\nAllow: /x/\nDisallow: /\n`;
      expect(allowed(txt, 'Foo', `${F}/x/y`)).toBe(true);
      expect(allowed(txt, 'foo', `${F}/a/b`)).toBe(false);
    }
    // Up to the first space: "Foo Bar" is Foo's group, not a group for a bot called "Foo Bar".
    const txt = 'User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n';
    expect(allowed(txt, 'Foo', `${F}/x/y`)).toBe(true);
    // A longer token is another bot: Foo-Images is not Foo.
    expect(allowed('User-agent: Foo-Images\nDisallow: /\n', 'foo', `${F}/x`)).toBe(true);
  });

  it('the product token of a User-Agent header: first word before /', () => {
    expect(productToken('crawld/0.1 (+https://github.com/crawld/crawld)')).toBe('crawld');
    expect(productToken('MyBot')).toBe('mybot');
    expect(productToken('Mozilla/5.0 (compatible; FooBot/2.1)')).toBe('mozilla');
  });

  it('* applies only when no group names the token', () => {
    const global = 'user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n';
    expect(allowed('', 'FooBot', `${F}/x/y`)).toBe(true);
    expect(allowed(global, 'FooBot', `${F}/x/y`)).toBe(false);
    expect(allowed(global, 'BarBot', `${F}/x/y`)).toBe(true);
    const specific =
      'user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\nuser-agent: BazBot\ndisallow: /\n';
    expect(allowed(specific, 'QuxBot', `${F}/x/y`)).toBe(true);
    // A group for the token with no rules: nothing disallowed, the * group does not apply.
    expect(allowed('User-agent: *\nDisallow: /\n\nUser-agent: FooBot\nDisallow:\n', 'FooBot', `${F}/x`)).toBe(
      true,
    );
    // Groups for * merge too.
    expect(allowed('User-agent: *\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n', 'x', `${F}/b/1`)).toBe(
      false,
    );
  });

  it('paths are case-sensitive', () => {
    expect(allowed('user-agent: FooBot\ndisallow: /x/\n', 'FooBot', `${F}/x/y`)).toBe(false);
    expect(allowed('user-agent: FooBot\ndisallow: /X/\n', 'FooBot', `${F}/x/y`)).toBe(true);
  });

  it('the longest match wins; allow wins a tie', () => {
    const url = `${F}/x/page.html`;
    expect(allowed('user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n', 'FooBot', url)).toBe(false);
    expect(allowed('user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n', 'FooBot', url)).toBe(true);
    expect(allowed('user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n', 'FooBot', `${F}/x/`)).toBe(
      false,
    );
    expect(allowed('user-agent: FooBot\ndisallow: \nallow: \n', 'FooBot', url)).toBe(true);
    expect(allowed('user-agent: FooBot\ndisallow: /\nallow: /\n', 'FooBot', url)).toBe(true);
    expect(allowed('user-agent: FooBot\ndisallow: /x\nallow: /x/\n', 'FooBot', `${F}/x`)).toBe(false);
    expect(allowed('user-agent: FooBot\ndisallow: /x\nallow: /x/\n', 'FooBot', `${F}/x/`)).toBe(true);
    expect(allowed('user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n', 'FooBot', url)).toBe(
      true,
    );
    expect(allowed('user-agent: FooBot\nallow: /page\ndisallow: /*.html\n', 'FooBot', `${F}/page.html`)).toBe(
      false,
    );
    expect(allowed('user-agent: FooBot\nallow: /page\ndisallow: /*.html\n', 'FooBot', `${F}/page`)).toBe(
      true,
    );
    expect(allowed('user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n', 'FooBot', url)).toBe(true);
    expect(
      allowed('user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n', 'FooBot', `${F}/x/y.html`),
    ).toBe(false);
    const txt = 'User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n';
    expect(allowed(txt, 'FooBot', `${F}/x/page`)).toBe(true);
    expect(allowed(txt, 'FooBot', `${F}/y/page`)).toBe(false);
    expect(
      allowed('user-agent: FooBot\nallow: /folder\ndisallow: /folder\n', 'FooBot', `${F}/folder/page`),
    ).toBe(true);
  });

  it("robots_test.cc ID_Encoding, every case as Google's library answers it", () => {
    // /foo/bar?baz=http://foo.bar stays unencoded.
    expect(
      allowed(
        'User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n',
        'FooBot',
        'http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par',
      ),
    ).toBe(true);
    // 3 byte character: /foo/bar/ツ -> /foo/bar/%E3%83%84
    const katakana = 'User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n';
    expect(allowed(katakana, 'FooBot', 'http://foo.bar/foo/bar/%E3%83%84')).toBe(true);
    // The parser encodes the 3-byte character, but the URL is not %-encoded.
    expect(allowed(katakana, 'FooBot', 'http://foo.bar/foo/bar/ツ')).toBe(false);
    // Percent encoded 3 byte character: /foo/bar/%E3%83%84 -> /foo/bar/%E3%83%84
    const escaped = 'User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n';
    expect(allowed(escaped, 'FooBot', 'http://foo.bar/foo/bar/%E3%83%84')).toBe(true);
    expect(allowed(escaped, 'FooBot', 'http://foo.bar/foo/bar/ツ')).toBe(false);
    // Percent encoded unreserved US-ASCII: /foo/bar/%62%61%7A -> NULL
    const unreserved = 'User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n';
    expect(allowed(unreserved, 'FooBot', 'http://foo.bar/foo/bar/baz')).toBe(false);
    expect(allowed(unreserved, 'FooBot', 'http://foo.bar/foo/bar/%62%61%7A')).toBe(true);
  });

  it('robots_test.cc TestGetPathParamsQuery and GoogleOnly_SystemTest: the path cut from the URL string', () => {
    for (const [url, path] of [
      ['', '/'],
      ['http://www.example.com', '/'],
      ['http://www.example.com/', '/'],
      ['http://www.example.com/a', '/a'],
      ['http://www.example.com/a/', '/a/'],
      ['http://www.example.com/a/b?c=http://d.e/', '/a/b?c=http://d.e/'],
      ['http://www.example.com/a/b?c=d&e=f#fragment', '/a/b?c=d&e=f'],
      ['example.com', '/'],
      ['example.com/', '/'],
      ['example.com/a', '/a'],
      ['example.com/a/', '/a/'],
      ['example.com/a/b?c=d&e=f#fragment', '/a/b?c=d&e=f'],
      ['a', '/'],
      ['a/', '/'],
      ['/a', '/a'],
      ['a/b', '/b'],
      ['example.com?a', '/?a'],
      ['example.com/a;b#c', '/a;b'],
      ['//a/b/c', '/b/c'],
    ] as const)
      expect(pathParamsQuery(url), url).toBe(path);
    // An empty query keeps its `?`, as the URL crawld requests has it.
    expect(pathParamsQuery('http://foo.bar/a?')).toBe('/a?');
    const txt = 'user-agent: FooBot\ndisallow: /\n';
    expect(allowed('', 'FooBot', '')).toBe(true);
    expect(allowed(txt, '', '')).toBe(true);
    // An empty URL is "/": disallowed here.
    expect(allowed(txt, 'FooBot', '')).toBe(false);
    expect(allowed('', '', '')).toBe(true);
  });

  it('beyond ID_Encoding: escapes of the URL compared with upper-case hex, unreserved ones also decoded (RFC 9309 table); %2F is not /', () => {
    const txt = (allow: string) => `User-agent: FooBot\nDisallow: /\nAllow: ${allow}\n`;
    expect(allowed(txt('/foo/bar/%e3%83%84'), 'FooBot', `${F}/foo/bar/%E3%83%84`)).toBe(true);
    expect(allowed(txt('/foo/bar/%E3%83%84'), 'FooBot', `${F}/foo/bar/%e3%83%84`)).toBe(true);
    expect(allowed(txt('/foo/bar/%62%61%7a'), 'FooBot', `${F}/foo/bar/%62%61%7A`)).toBe(true);
    // RFC 9309's table reads the URI /foo/bar/%62%61%7A as /foo/bar/baz: a plain pattern matches it.
    expect(allowed(txt('/foo/bar/baz'), 'FooBot', `${F}/foo/bar/%62%61%7A`)).toBe(true);
    expect(allowed('User-agent: *\nDisallow: /%7Efoo\n', 'crawld', `${F}/~foo`)).toBe(true);
    expect(allowed('User-agent: *\nDisallow: /~foo\n', 'crawld', `${F}/%7Efoo`)).toBe(false);
    // Reserved characters keep their encoding: %2F is not /, %3F is not ?.
    expect(allowed(txt('/a/b'), 'FooBot', `${F}/a%2Fb`)).toBe(false);
    expect(allowed(txt('/a%2Fb'), 'FooBot', `${F}/a%2fb`)).toBe(true);
    expect(allowed(txt('/a?b'), 'FooBot', `${F}/a%3Fb`)).toBe(false);
    expect(normalisePath('/%7euser/%41%2f%E3%83%84ü')).toBe('/%7Euser/%41%2F%E3%83%84%C3%BC');
    expect(robotsPaths(`${F}/%7euser/%41%2f%E3%83%84ü`)).toEqual([
      '/%7Euser/%41%2F%E3%83%84ü',
      '/~user/A%2F%E3%83%84ü',
    ]);
    expect(robotsPaths(`${F}/plain?q=1#f`)).toEqual(['/plain?q=1']);
  });

  it("white space around keys and values is robots.cc's (ASCII, VT included), not trim()'s U+00A0 or U+FEFF", () => {
    // VT and FF are stripped like spaces.
    expect(allowed('User-agent: FooBot\nDisallow:\v/x\f\n', 'FooBot', `${F}/x`)).toBe(false);
    expect(allowed('User-agent: FooBot\nDisallow \v/x\n', 'FooBot', `${F}/x`)).toBe(false);
    // U+00A0 is part of the value: `Disallow: \u00a0/x` is the pattern %C2%A0/x, matching nothing here.
    expect(allowed('User-agent: FooBot\nDisallow: \u00a0/x\n', 'FooBot', `${F}/x`)).toBe(true);
    expect(allowed('User-agent: FooBot\nDisallow: /x\u3000\n', 'FooBot', `${F}/x`)).toBe(true);
    expect(allowed('User-agent: FooBot\nDisallow: /x\u3000\n', 'FooBot', `${F}/x%E3%80%80`)).toBe(false);
    // A group of `FooBot\u00a0`: the token stops at U+00A0 as at any other character outside [A-Za-z_-].
    expect(allowed('User-agent: FooBot\u00a0\nDisallow: /\n', 'FooBot', `${F}/x`)).toBe(false);
    // `*` then U+00A0 is no global group (robots.cc: isspace); `*` then VT is.
    expect(allowed('User-agent: *\u00a0x\nDisallow: /\n', 'FooBot', `${F}/x`)).toBe(true);
    expect(allowed('User-agent: *\vx\nDisallow: /\n', 'FooBot', `${F}/x`)).toBe(false);
    expect(parseRobotsTxt('Sitemap: \u00a0http://foo.bar/s.xml\u00a0\n').sitemaps).toEqual([
      '\u00a0http://foo.bar/s.xml\u00a0',
    ]);
  });

  it('the query as written: never reordered (rules see the URL that was discovered)', () => {
    const txt = 'User-agent: *\nDisallow: /x?b=2\n';
    expect(allowed(txt, 'crawld', `${F}/x?b=2&a=1`)).toBe(false);
    expect(allowed(txt, 'crawld', `${F}/x?a=1&b=2`)).toBe(true);
    expect(allowed('User-agent: *\nDisallow: /*utm_source=\n', 'crawld', `${F}/x?utm_source=n`)).toBe(false);
    // The fragment is not part of the path.
    expect(allowed('User-agent: *\nDisallow: /a$\n', 'crawld', `${F}/a#frag`)).toBe(false);
  });

  it('special characters: * and $, # starts a comment', () => {
    const a = 'User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n';
    expect(allowed(a, 'FooBot', `${F}/foo/bar/quz`)).toBe(false);
    expect(allowed(a, 'FooBot', `${F}/foo/quz`)).toBe(true);
    expect(allowed(a, 'FooBot', `${F}/foo//quz`)).toBe(true);
    expect(allowed(a, 'FooBot', `${F}/foo/bax/quz`)).toBe(true);
    const b = 'User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n';
    expect(allowed(b, 'FooBot', `${F}/foo/bar`)).toBe(false);
    expect(allowed(b, 'FooBot', `${F}/foo/bar/qux`)).toBe(true);
    expect(allowed(b, 'FooBot', `${F}/foo/bar/`)).toBe(true);
    expect(allowed(b, 'FooBot', `${F}/foo/bar/baz`)).toBe(true);
    const c = 'User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n';
    expect(allowed(c, 'FooBot', `${F}/foo/bar`)).toBe(true);
    expect(allowed(c, 'FooBot', `${F}/foo/quz`)).toBe(false);
    const php = 'user-agent: FooBot\ndisallow: /\nallow: /*.php$\n';
    expect(allowed(php, 'FooBot', `${F}/folder/filename.php`)).toBe(true);
    for (const p of ['/filename.php?parameters', '/filename.php/', '/filename.php5', '/php/', '/aaaphpaaa'])
      expect(allowed(php, 'FooBot', `${F}${p}`)).toBe(false);
    const fish = 'user-agent: FooBot\ndisallow: /\nallow: /fish*.php\n';
    expect(allowed(fish, 'FooBot', `${F}/fishheads/catfish.php?parameters`)).toBe(true);
    expect(allowed(fish, 'FooBot', `${F}/Fish.PHP`)).toBe(false);
    const root = 'user-agent: FooBot\nallow: /$\ndisallow: /\n';
    expect(allowed(root, 'FooBot', `${F}/`)).toBe(true);
    expect(allowed(root, 'FooBot', `${F}/page.html`)).toBe(false);
    // A $ inside a pattern is a literal character.
    expect(allowed('User-agent: *\nDisallow: /a$b\n', 'x', `${F}/a$b/c`)).toBe(false);
  });

  it('index.html at the end of an Allow also allows its directory (exactly)', () => {
    const txt = 'User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n';
    expect(allowed(txt, 'foobot', 'http://foo.com/allowed-slash/')).toBe(true);
    expect(allowed(txt, 'foobot', 'http://foo.com/allowed-slash/index.htm')).toBe(false);
    expect(allowed(txt, 'foobot', 'http://foo.com/allowed-slash/index.html')).toBe(true);
    expect(allowed(txt, 'foobot', 'http://foo.com/anyother-url')).toBe(false);
  });

  it('long lines are truncated, not dropped', () => {
    const disallow = 'disallow: ';
    let long = '/x/';
    while (long.length < ROBOTS_MAX_LINE - 3 - disallow.length + 1) long += 'a';
    const txt = `user-agent: FooBot\n${disallow}${long}/qux\n`;
    expect(allowed(txt, 'FooBot', `${F}/fux`)).toBe(true);
    expect(allowed(txt, 'FooBot', `${F}${long}/fux`)).toBe(false);
    let a = '/x/';
    let b = '/x/';
    while (a.length < ROBOTS_MAX_LINE - 3 - 'allow: '.length + 1) {
      a += 'a';
      b += 'b';
    }
    const t2 = `user-agent: FooBot\ndisallow: /\nallow: ${a}/qux\nallow: ${b}/qux\n`;
    expect(allowed(t2, 'FooBot', `${F}/`)).toBe(false);
    expect(allowed(t2, 'FooBot', `${F}${a}/qux`)).toBe(true);
    expect(allowed(t2, 'FooBot', `${F}${b}/fux`)).toBe(true);
  });

  it('CR, LF, CRLF and mixed line ends, a BOM, no final newline', () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const txt = `\uFEFFUser-Agent: foo${eol}Allow: /some/path${eol}User-Agent: bar${eol}${eol}${eol}Disallow: /`;
      expect(allowed(txt, 'bar', `${F}/x`)).toBe(false);
      expect(allowed(txt, 'foo', `${F}/x`)).toBe(true);
      expect(allowed(txt, 'foo', `${F}/some/path`)).toBe(true);
    }
    expect(allowed('User-Agent: foo\nDisallow: /a\r\nDisallow: /b\rDisallow: /c', 'foo', `${F}/c`)).toBe(
      false,
    );
    // The BOM is skipped: the first line is a user-agent line.
    expect(allowed('\uFEFFUser-agent: *\nDisallow: /\n', 'x', `${F}/a`)).toBe(false);
  });

  it('Sitemap lines anywhere; Crawl-delay of the applicable groups', () => {
    const r = parseRobotsTxt(
      'Sitemap: http://a/s1.xml\nUser-agent: foo\nCrawl-delay: 2\nDisallow:\nsitemap:http://a/s2.xml\n',
    );
    expect(r.sitemaps).toEqual(['http://a/s1.xml', 'http://a/s2.xml']);
    expect(crawlDelayFor(r, 'foo')).toBe(2);
    expect(crawlDelayFor(r, 'bar')).toBeUndefined();
  });

  it('a body over 500 KiB is cut at the last line end within it', () => {
    const head = 'User-agent: *\nDisallow: /private\n';
    const pad = `#${'x'.repeat(99)}\n`.repeat(5200);
    const body = Buffer.from(`${head}${pad}Disallow: /late\n`);
    const text = robotsBodyText(body);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(500 * 1024);
    expect(text.endsWith('\n')).toBe(true);
    const r = parseRobotsTxt(text);
    expect(isAllowedBy(r, 'x', `${F}/private/1`)).toBe(false);
    expect(isAllowedBy(r, 'x', `${F}/late`)).toBe(true);
  });

  it('never throws on any bytes', () => {
    let seed = 7;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    const alphabet = [
      'User-agent:',
      'Disallow:',
      'Allow:',
      '*',
      '$',
      '/',
      '%',
      '%e',
      '\n',
      '\r',
      ' ',
      '#',
      'a',
      '\u0000',
      '\uFFFD',
      'ツ',
      ':',
    ];
    for (let i = 0; i < 300; i++) {
      let txt = '';
      for (let j = 0; j < 60; j++) txt += alphabet[rnd() % alphabet.length];
      const r = parseRobotsTxt(txt);
      expect(typeof isAllowedBy(r, 'a', `${F}/a*b$%25/%e3`)).toBe('boolean');
    }
  });
});

interface RobotsParserRobot {
  isAllowed(url: string, ua?: string): boolean | undefined;
}
const robotsParser = createRequire(import.meta.url)('robots-parser') as (
  url: string,
  txt: string,
) => RobotsParserRobot;

/**
 * Differential: on well-formed files (one group per agent, colons present, ASCII paths, no
 * reserved-character escapes) robots-parser and ours must agree; where the RFC and the
 * reference parser say otherwise (cases above), ours follows them.
 */
describe('robots.txt: differential against robots-parser on well-formed input', () => {
  it('agrees on 2000 generated files and URLs', () => {
    let seed = 42;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const segs = ['a', 'b', 'ab', 'x.html', 'p', 'q=1', '*', 'a*b', 'b$', ''];
    const pattern = () => {
      let p = '/';
      const n = rnd(3);
      for (let i = 0; i < n; i++) p += segs[rnd(segs.length)] + (rnd(2) ? '/' : '');
      return p;
    };
    const paths = [
      '/',
      '/a',
      '/a/',
      '/a/b',
      '/ab',
      '/ab/x.html',
      '/b',
      '/b/a',
      '/p',
      '/p?q=1',
      '/a/x.html?q=1',
      '/x.html',
      '/b$',
    ];
    let compared = 0;
    let disallowed = 0;
    for (let i = 0; i < 2000; i++) {
      const agents = ['FooBot', '*', 'BarBot'];
      let txt = '';
      for (const agent of agents.slice(0, 1 + rnd(3))) {
        txt += `User-agent: ${agent}\n`;
        const rules = 1 + rnd(4);
        for (let r = 0; r < rules; r++) txt += `${rnd(2) ? 'Allow' : 'Disallow'}: ${pattern()}\n`;
        txt += '\n';
      }
      const theirs = robotsParser('http://foo.bar/robots.txt', txt);
      const ours = parseRobotsTxt(txt);
      for (const bot of ['FooBot', 'QuxBot']) {
        const url = `http://foo.bar${paths[rnd(paths.length)]}`;
        expect(isAllowedBy(ours, bot, url), `${txt}\n${bot} ${url}`).toBe(theirs.isAllowed(url, bot) ?? true);
        compared++;
        if (!isAllowedBy(ours, bot, url)) disallowed++;
      }
    }
    expect(compared).toBe(4000);
    // Both answers occur often: the comparison is not between two constant functions.
    expect(disallowed).toBeGreaterThan(400);
    expect(disallowed).toBeLessThan(3600);
  });

  it('differs where robots-parser is wrong (documented in docs/politeness.md)', () => {
    const url = 'http://foo.bar/x';
    // A missing colon: the reference reads the rule, robots-parser drops the line.
    const noColon = 'User-agent FooBot\nDisallow /\n';
    expect(isAllowedBy(parseRobotsTxt(noColon), 'FooBot', url)).toBe(false);
    expect(robotsParser('http://foo.bar/robots.txt', noColon).isAllowed(url, 'FooBot')).toBe(true);
  });
});
