/**
 * URLs on the wire as the page wrote them (issue 43), through the whole CLI as a user runs it
 * (`crawl URL --once --allow-private-networks`, no HTTP server), against a real server that
 * records each request line's target: an empty query keeps its `?` (a seed, a link, a link
 * `?` against a `<base>`, a redirect), and an href is stripped of ASCII whitespace only (HTML),
 * so U+00A0, U+2003, U+3000 and U+FEFF around it are part of the URL the standard parses;
 * robots.txt's `Allow: /enc/%62%61%7A` allows that URL (robots_test.cc ID_Encoding).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJsonl, runCli, tempDir } from '../helpers/cli.js';
import { useSite } from '../helpers/engine.js';
import { isPageRequest } from '../helpers/probe.js';

const LINKS = [
  '/a?',
  '/a', // the same dedupe key as /a?: fetched once, as first linked
  '/b/?#frag',
  '/canon',
  '/base/page',
  '/enc/%62%61%7A',
  '/enc/qux',
  '\u00a0/nbsp',
  '/em\u2003',
  '\u3000/ideo',
  '\ufeff/bom',
  ' \t\n/ascii\r\n ',
];

describe('request targets as written (whole CLI)', () => {
  const site = useSite((req, res) => {
    const path = req.url ?? '/';
    const page = (head: string, links: readonly string[]) =>
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          `<html><head><title>${path}</title>${head}</head><body>${links.map((l) => `<a href="${l}">x</a>`).join('')}</body></html>`,
        );
    if (path === '/robots.txt')
      return res
        .writeHead(200, { 'content-type': 'text/plain' })
        .end('User-agent: *\nDisallow: /enc/\nAllow: /enc/%62%61%7A\n');
    // A server whose canonical form has the bare `?`: it redirects there and answers only there.
    if (path === '/canon') return res.writeHead(301, { location: '/canon?' }).end();
    if (path === '/start?') return page('', LINKS);
    // `?` against the document base: /other/?, a URL this crawl has not seen yet.
    if (path === '/base/page') return page('<base href="/other/">', ['?']);
    return page('', []);
  });

  it('crawl --once: the request line keeps an empty query; hrefs keep non-ASCII spaces; robots allows /enc/%62%61%7A', async () => {
    const dataDir = tempDir();
    const run = await runCli([
      'crawl',
      `${site.origin}/start?`,
      '--data-dir',
      dataDir,
      '--allow-private-networks',
      '--once',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const pages = site.hits.filter(isPageRequest);
    expect([...pages].sort()).toEqual(
      [
        '/start?',
        '/a?',
        '/b/?',
        '/canon',
        '/canon?',
        '/base/page',
        '/other/?',
        '/enc/%62%61%7A',
        // As a browser requests them: the URL parser percent-encodes what HTML did not strip.
        '/%C2%A0/nbsp',
        '/em%E2%80%83',
        '/%E3%80%80/ideo',
        '/%EF%BB%BF/bom',
        '/ascii',
      ].sort(),
    );
    // Each once: `/a` deduped with `/a?`, `/canon?` reached through the redirect only.
    expect(pages.length).toBe(new Set(pages).size);

    const records = new Map(readJsonl(join(dataDir, 'results.jsonl')).map((r) => [r.url, r]));
    const o = site.origin;
    // The record names the URL as requested; its dedupe key drops the empty query.
    expect(records.get(`${o}/start?`)).toMatchObject({ key: `${o}/start`, status: 200 });
    expect(records.get(`${o}/a?`)).toMatchObject({ key: `${o}/a`, status: 200 });
    expect(records.get(`${o}/canon`)).toMatchObject({ finalUrl: `${o}/canon?`, status: 200 });
    expect(records.get(`${o}/other/?`)).toMatchObject({ key: `${o}/other/`, status: 200 });
    expect(records.get(`${o}/%C2%A0/nbsp`)).toMatchObject({ key: `${o}/%C2%A0/nbsp`, status: 200 });
    expect(records.get(`${o}/enc/%62%61%7A`)).toMatchObject({ key: `${o}/enc/baz`, status: 200 });
    expect(records.size).toBe(12);
    // /enc/qux: disallowed by robots.txt.
    expect(run.stdout).toMatch(/12 ok, 0 failed, 1 skipped/);
  });
});
