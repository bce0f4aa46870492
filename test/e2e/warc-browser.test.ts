/**
 * A browser-rendered page's capture holds what the page loaded (real Chromium, through the
 * CLI): the demo site's --js product pages are shells whose script fetches /api/p/N.json; the
 * archive holds each page's document and its JSON, both as exchanges of their own.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readJsonl, runOnce, tempDir, useSiteCli, writeJsonConfig } from '../helpers/cli.js';
import { browserFetch, requireChromium } from '../helpers/js-site.js';
import { parseHttp, readWarcGz, sha1Of, warcFiles } from '../helpers/warc.js';

describe('WARC sink with render.kind browser (real Chromium)', () => {
  beforeAll(requireChromium);
  const site = useSiteCli(['--js', '--pages', '12']);

  it("archives each rendered page's document and the subresources its script loaded", async () => {
    const dir = tempDir();
    const port = Number(new URL(site.origin).port);
    const config = writeJsonConfig(dir, {
      fetch: browserFetch(port),
      sinks: [{ kind: 'jsonl' }, { kind: 'warc' }],
      jobs: [
        { id: 'js', seeds: [`${site.origin}/`], render: { kind: 'browser', waitForSelector: 'span.price' } },
      ],
    });
    const run = await runOnce(config, 120_000);
    expect(run.code, run.stderr).toBe(0);
    const records = warcFiles(join(dir, 'data', 'warc')).flatMap((f) => readWarcGz(f));
    const responses = records.filter((r) => r.fields['warc-type'] === 'response');
    for (const r of responses) expect(r.fields['warc-payload-digest']).toBe(sha1Of(parseHttp(r.block).body));
    const urls = new Set(responses.map((r) => new URL(r.fields['warc-target-uri']!).pathname));
    const pages = readJsonl(join(dir, 'data', 'results.jsonl')).map((r) => new URL(r.url as string).pathname);
    expect(pages.length).toBe(12);
    for (const p of pages) {
      expect(urls.has(p), p).toBe(true);
      // The JSON the page's script fetched while it rendered (page 0 is at /).
      const api = p === '/' ? '/api/p/0.json' : `/api${p}.json`;
      expect(urls.has(api), api).toBe(true);
    }
  }, 150_000);
});
