/**
 * URLs on the wire and scope across redirects, through the whole CLI (`run --once`, no HTTP
 * server): the request line carries each URL as the page linked it while dedupe merges its
 * variants; robots.txt rules see that URL; a seed's redirect (apex -> www, http -> https)
 * takes its target host into the scope; other redirects out of scope are skipped, counted.
 * Hostnames resolve to 127.0.0.1 through `fetch.resolve`: no real DNS.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readJsonl, runCli, tempDir, writeJsonConfig } from '../helpers/cli.js';
import { makeTestCerts, type TestCerts } from '../helpers/tls-certs.js';

const HOSTS = ['shop.test', 'www.shop.test', 'img.shop.test', 'elsewhere.test', 'other.test'];

describe('URLs as discovered and scope across redirects (whole CLI)', () => {
  let plain: http.Server;
  let secure: https.Server;
  let certs: TestCerts;
  let port: number;
  let tlsPort: number;
  /** `host path` of every request, as the request line had it. */
  let requested: string[] = [];

  const page = (title: string, links: string[]) =>
    `<html><head><title>${title}</title></head><body>${links.map((l) => `<a href="${l}">x</a>`).join('')}</body></html>`;

  beforeAll(async () => {
    certs = makeTestCerts();
    plain = http.createServer((req, res) => {
      const host = (req.headers.host ?? '').replace(/:\d+$/, '');
      const path = req.url ?? '/';
      requested.push(`${host} ${path}`);
      const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(body);
      if (path === '/robots.txt') {
        // Matched against the URL as linked: the dedupe key of /r?utm_source=a&id=1 is /r?id=1.
        return res
          .writeHead(200, { 'content-type': 'text/plain' })
          .end('User-agent: *\nDisallow: /r?utm_source\n');
      }
      if (host === 'shop.test' && path === '/') {
        return res.writeHead(301, { location: `http://www.shop.test:${port}/` }).end();
      }
      if (host === 'other.test' && path === '/') {
        return res.writeHead(301, { location: `https://other.test:${tlsPort}/` }).end();
      }
      if (host === 'www.shop.test' && path === '/') {
        return html(
          page('home', [
            '/x?b=2&a=1&utm_source=news',
            '/x?a=1&b=2',
            '/y?sig=abc&expires=1',
            '/e?q=caf%C3%A9&r=%7e#frag',
            '/r?utm_source=a&id=1',
            `http://img.shop.test:${port}/i`,
            `http://elsewhere.test:${port}/o`,
            '/moved',
          ]),
        );
      }
      if (path === '/moved')
        return res.writeHead(302, { location: `http://elsewhere.test:${port}/o2` }).end();
      return html(page(path, []));
    });
    secure = https.createServer(certs.wrongName, (req, res) => {
      // certs.wrongName is the certificate of other.test.
      requested.push(`https ${req.url}`);
      if (req.url === '/robots.txt') return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end(page(req.url ?? '', ['/s1', '/s2?b=1&a=2']));
    });
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => secure.listen(0, '127.0.0.1', r));
    port = (plain.address() as AddressInfo).port;
    tlsPort = (secure.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((r) => plain.close(() => r()));
    await new Promise<void>((r) => secure.close(() => r()));
  });
  beforeEach(() => {
    requested = [];
  });

  async function crawl(seed: string, scope: Record<string, unknown> = {}) {
    const dataDir = tempDir();
    const file = writeJsonConfig(
      tempDir('crawld-scope-config-'),
      {
        dataDir,
        fetch: {
          allowPrivateNetworks: true,
          resolve: Object.fromEntries(HOSTS.map((h) => [h, '127.0.0.1'])),
          tls: { ca: certs.caFile },
        },
        jobs: [{ id: 'shop', seeds: [seed], scope }],
      },
      'config.json',
    );
    const run = await runCli(['run', '--config', file, '--once']);
    expect(run.code, run.stderr).toBe(0);
    return { records: readJsonl(join(dataDir, 'results.jsonl')), stdout: run.stdout };
  }

  it('requests each URL as linked, dedupes its variants, follows the seed apex -> www', async () => {
    const { records, stdout } = await crawl(`http://shop.test:${port}/`);
    const www = `http://www.shop.test:${port}`;
    // The request line as the page wrote the link (query order, tracking parameter, escapes),
    // once for both variants of /x; the fragment is never sent.
    expect(requested).toContain('www.shop.test /x?b=2&a=1&utm_source=news');
    expect(requested).not.toContain('www.shop.test /x?a=1&b=2');
    expect(requested.filter((r) => r.startsWith('www.shop.test /x?'))).toHaveLength(1);
    expect(requested).toContain('www.shop.test /y?sig=abc&expires=1');
    expect(requested).toContain('www.shop.test /e?q=caf%C3%A9&r=%7e');
    // robots.txt matched the URL as linked, not its key /r?id=1.
    expect(requested.filter((r) => r.includes(' /r?'))).toEqual([]);
    // Default scope: seed host, its www twin (here also its redirect); not the sibling or others.
    expect(requested.some((r) => r.startsWith('img.shop.test'))).toBe(false);
    expect(requested.some((r) => r.startsWith('elsewhere.test'))).toBe(false);
    // /moved redirects to another site: not followed.
    expect(requested).toContain('www.shop.test /moved');

    const byUrl = new Map(records.map((r) => [r.url, r]));
    expect(byUrl.get(`${www}/x?b=2&a=1&utm_source=news`)).toMatchObject({ key: `${www}/x?a=1&b=2` });
    expect(byUrl.get(`${www}/y?sig=abc&expires=1`)).toMatchObject({ key: `${www}/y?expires=1&sig=abc` });
    expect(byUrl.get(`${www}/e?q=caf%C3%A9&r=%7e`)).toMatchObject({ key: `${www}/e?q=caf%C3%A9&r=~` });
    expect(byUrl.get(`http://shop.test:${port}/`)).toMatchObject({ finalUrl: `${www}/`, status: 200 });
    expect(byUrl.has(`${www}/moved`)).toBe(false);
    expect(records).toHaveLength(4); // the seed (its record is the redirected page), /x, /y, /e
    // Skipped: /r?utm_source (robots) and /moved (redirect_out_of_scope).
    expect(stdout).toMatch(/4 ok, 0 failed, 2 skipped/);
  });

  it('follows a seed http -> https to another port, whose links are then in scope', async () => {
    const { records } = await crawl(`http://other.test:${port}/`);
    expect(requested).toContain('https /s1');
    expect(requested).toContain('https /s2?b=1&a=2');
    const origin = `https://other.test:${tlsPort}`;
    expect(records.map((r) => r.url).sort()).toEqual(
      [`http://other.test:${port}/`, `${origin}/s1`, `${origin}/s2?b=1&a=2`].sort(),
    );
  });

  it('scope.sameSite takes in every host of the registrable domain, not other sites', async () => {
    await crawl(`http://shop.test:${port}/`, { sameSite: true });
    expect(requested).toContain('img.shop.test /i');
    expect(requested.some((r) => r.startsWith('elsewhere.test'))).toBe(false);
  });
});
