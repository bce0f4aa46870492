/**
 * The CLI behind a proxy, as a user runs it: `crawl --once` with HTTP_PROXY in the
 * environment sends every request through it (NO_PROXY hosts excepted), and a bad proxy URL
 * in the config exits 2 naming the field without echoing the credentials.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type DemoSite, startDemoSite } from '../../src/demo/site.js';
import { readJsonl, runCli, tempDir } from '../helpers/cli.js';
import { type ForwardProxy, startForwardProxy } from '../helpers/forward-proxy.js';

describe('crawld behind an HTTP proxy', () => {
  let site: DemoSite | undefined;
  let proxy: ForwardProxy | undefined;
  afterEach(async () => {
    await site?.close();
    await proxy?.close();
    site = undefined;
    proxy = undefined;
  });

  it('crawl --once with HTTP_PROXY sends every request through the proxy', async () => {
    site = await startDemoSite({ pages: 15 });
    proxy = await startForwardProxy();
    const dir = join(tempDir(), 'data');
    const r = await runCli(
      ['crawl', `${site.url}/`, '--once', '--data-dir', dir, '--allow-private-networks', '--no-progress'],
      { HTTP_PROXY: proxy.url('crawler:pw'), NO_PROXY: 'elsewhere.test', http_proxy: '' },
    );
    expect(r.code).toBe(0);
    expect(readJsonl(join(dir, 'results.jsonl'))).toHaveLength(15);
    // robots.txt and every page went through the proxy, with the credentials; none went round it.
    const viaProxy = proxy.log.filter((e) => e.kind === 'http');
    expect(viaProxy.length).toBe(site.stats().requests);
    expect(viaProxy.map((e) => e.path)).toContain('/robots.txt');
    expect(viaProxy.every((e) => e.auth === `Basic ${Buffer.from('crawler:pw').toString('base64')}`)).toBe(
      true,
    );
    expect(r.stderr + r.stdout).not.toContain('crawler:pw');
  });

  it('exits 2 naming the field of an invalid proxy URL, without its password', async () => {
    const tmp = tempDir();
    const file = join(tmp, 'bad.yaml');
    writeFileSync(
      file,
      'fetch:\n  proxy: "socks://u:hunter2@p:1"\njobs:\n  - id: a\n    seeds: [http://a.example/]\n    proxy: ["ftp://u:hunter3@x"]\n',
    );
    const r = await runCli(['check-config', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('fetch.proxy: must be an http:// or https:// proxy URL');
    expect(r.stderr).toContain('jobs[0].proxy[0]: must be an http:// or https:// proxy URL');
    expect(r.stderr).not.toMatch(/hunter/);
  });
});
