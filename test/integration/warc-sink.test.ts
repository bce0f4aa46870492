/**
 * The WARC sink against a real server (test/helpers/archive-site.ts): every record parses and
 * its digests, recomputed here, are right; stored payloads are the bytes the server sent; files
 * roll over; every CDXJ line points at its record; secrets are redacted; and wget --warc-file
 * on the same site stores the same payloads (its chunked digests are named where they differ).
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/config.js';
import { createDaemon, type Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/observe/logger.js';
import { ARCHIVE_PAGES, type ArchiveSite, startArchiveSite } from '../helpers/archive-site.js';
import { tempDir } from '../helpers/cli.js';
import { metricSum } from '../helpers/hostile-server.js';
import { waitFor } from '../helpers/wait.js';
import {
  dechunk,
  header,
  parseHttp,
  parseRecords,
  readWarcGz,
  readWarcPlain,
  sha1Of,
  type TestRecord,
  warcFiles,
} from '../helpers/warc.js';

const MAX_FILE = 65_536;
let site: ArchiveSite | undefined;
let daemon: Daemon | undefined;
afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  await site?.close();
  site = undefined;
});

function configFor(
  s: ArchiveSite,
  dir: string,
  extra: Record<string, unknown> = {},
  job: Record<string, unknown> = {},
) {
  return validateConfig({
    dataDir: dir,
    fetch: { allowAddresses: [`127.0.0.1:${s.port}`] },
    politeness: { minDelayMs: 0 },
    retry: { maxAttempts: 1 },
    sinks: [{ kind: 'jsonl' }, { kind: 'warc', maxFileBytes: MAX_FILE, ...extra }],
    jobs: [
      {
        id: 'arc',
        seeds: [`${s.origin}/`],
        request: { headers: { Authorization: 'Bearer t0ken-s3cret' } },
        ...job,
      },
    ],
  });
}

const logger = () => createLogger({ level: 'error', instanceId: 't', silent: true });

function allRecords(dir: string): { file: string; records: TestRecord[] }[] {
  return warcFiles(dir).map((file) => ({ file, records: readWarcGz(file) }));
}

function responsesByUrl(records: readonly TestRecord[]): Map<string, TestRecord[]> {
  const out = new Map<string, TestRecord[]>();
  for (const r of records) {
    if (r.fields['warc-type'] !== 'response' && r.fields['warc-type'] !== 'revisit') continue;
    const url = r.fields['warc-target-uri']!;
    out.set(url, [...(out.get(url) ?? []), r]);
  }
  return out;
}

/** Digests recomputed from the stored bytes, for every record that carries them. */
function checkDigests(records: readonly TestRecord[]): void {
  for (const r of records) {
    expect(r.version).toBe('WARC/1.1');
    expect(r.fields['warc-block-digest'], r.fields['warc-type']).toBe(sha1Of(r.block));
    if (r.fields['warc-type'] === 'response') {
      expect(r.fields['warc-payload-digest']).toBe(sha1Of(parseHttp(r.block).body));
    }
  }
}

/** wget's archive of the site (async: the site answers from this process). */
async function wgetArchive(origin: string, dir: string): Promise<TestRecord[]> {
  const args = ['-r', '-l', '2', '-q', '--no-warc-compression', `--warc-file=${join(dir, 'wget')}`];
  const child = spawn('wget', [...args, '-P', join(dir, 'files'), `${origin}/`], { stdio: 'ignore' });
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  // wget exits 8 when a page answered an error status; the archive is whole.
  expect([0, 8]).toContain(code);
  return readWarcPlain(join(dir, 'wget.warc'));
}

describe('WARC sink on a real server', () => {
  it('archives every exchange as it crossed the wire, rolls files over and indexes them', async () => {
    site = await startArchiveSite({ bigPages: 6, bigBytes: 20_000 });
    const dir = tempDir();
    daemon = await createDaemon(configFor(site, dir), { once: true, logger: logger() });
    await daemon.run();
    const d = daemon;
    await daemon.stop();
    daemon = undefined;
    const warcDir = join(dir, 'warc');
    expect(readdirSync(warcDir).filter((n) => n.endsWith('.open'))).toEqual([]);
    const files = allRecords(warcDir);
    // Rotation: files close before a record would pass maxFileBytes, unless one exchange alone is bigger.
    expect(files.length).toBeGreaterThan(2);
    for (const { file, records } of files) {
      expect(records[0]!.fields['warc-type']).toBe('warcinfo');
      expect(records[0]!.fields['warc-filename']).toBe(file.split('/').pop());
      expect(records.filter((r) => r.fields['warc-type'] === 'warcinfo')).toHaveLength(1);
      if (statSync(file).size > MAX_FILE) expect(records.length).toBeLessThanOrEqual(3);
    }
    const records = files.flatMap((f) => f.records);
    checkDigests(records);
    // The metrics count what the files hold.
    const text = await d.metrics.registry.metrics();
    const count = (type: string) => records.filter((r) => r.fields['warc-type'] === type).length;
    for (const type of ['warcinfo', 'request', 'response']) {
      expect(metricSum(text, 'crawld_warc_records_total', { type }), type).toBe(count(type));
    }
    expect(metricSum(text, 'crawld_warc_files_closed_total')).toBe(files.length);
    const bytes = files.reduce((n, f) => n + statSync(f.file).size, 0);
    expect(metricSum(text, 'crawld_warc_bytes_total')).toBe(bytes);
    expect(metricSum(text, 'crawld_warc_open_file_bytes')).toBe(0);

    // Every response has its request, each naming the other.
    const byId = new Map(records.map((r) => [r.fields['warc-record-id'], r]));
    const responses = records.filter((r) => r.fields['warc-type'] === 'response');
    for (const res of responses) {
      const req = byId.get(res.fields['warc-concurrent-to']);
      expect(req?.fields['warc-type']).toBe('request');
      expect(req?.fields['warc-concurrent-to']).toBe(res.fields['warc-record-id']);
      expect(req?.fields['warc-target-uri']).toBe(res.fields['warc-target-uri']);
    }

    // Stored payloads are the bytes sent, content coding intact, chunk framing gone.
    const byUrl = responsesByUrl(records);
    const s = site;
    for (const [path, body] of s.sent) {
      const res = byUrl.get(`${s.origin}${path}`)?.[0];
      expect(res, path).toBeDefined();
      expect(parseHttp(res!.block).body.equals(body), path).toBe(true);
    }
    for (const path of ['/chunked', '/chunked-gzip']) {
      const http = parseHttp(byUrl.get(`${s.origin}${path}`)![0]!.block);
      expect(header(http, 'transfer-encoding')).toBeUndefined();
      expect(header(http, 'x-crawld-transfer-encoding')).toBe('chunked');
    }
    expect(header(parseHttp(byUrl.get(`${s.origin}/gzip`)![0]!.block), 'content-encoding')).toBe('gzip');
    // The redirect hop and its target, robots.txt: each an exchange of its own.
    expect(parseHttp(byUrl.get(`${s.origin}/redirect`)![0]!.block).startLine).toBe(
      'HTTP/1.1 301 Moved Permanently',
    );
    expect(byUrl.has(`${s.origin}/moved`)).toBe(true);
    expect(byUrl.has(`${s.origin}/robots.txt`)).toBe(true);

    // Request records hold the head the server read, line for line (secrets aside).
    for (const path of ['/plain', '/gzip', '/robots.txt']) {
      const req = records.find(
        (r) => r.fields['warc-type'] === 'request' && r.fields['warc-target-uri'] === `${s.origin}${path}`,
      )!;
      const stored = req.block.toString('latin1').split('\r\n').slice(0, -2);
      const read = s.heads
        .get(path)!
        .map((l) => l.replace(/^(authorization: Bearer |cookie: session=).*$/i, '$1REDACTED'));
      expect(stored, path).toEqual(read);
    }
    // Secrets in requests redacted: the job's Authorization and the jar's cookie.
    const requests = records
      .filter((r) => r.fields['warc-type'] === 'request')
      .map((r) => r.block.toString('latin1'));
    expect(requests.some((r) => /\r\nauthorization: Bearer REDACTED\r\n/.test(r))).toBe(true);
    expect(requests.some((r) => /\r\ncookie: session=REDACTED\r\n/.test(r))).toBe(true);
    expect(requests.filter((r) => r.includes('s3cret'))).toEqual([]);

    // Every CDXJ line points at its record, lines sorted.
    let lines = 0;
    for (const { file } of files) {
      const cdxj = readFileSync(file.replace(/\.warc\.gz$/, '.cdxj'), 'utf8')
        .trim()
        .split('\n');
      expect([...cdxj].sort()).toEqual(cdxj);
      const bytes = readFileSync(file);
      for (const line of cdxj) {
        const [key, stamp] = line.split(' ');
        const j = JSON.parse(line.slice(line.indexOf('{'))) as Record<string, string>;
        expect(j.filename).toBe(file.split('/').pop());
        const one = parseRecords(
          gunzipSync(bytes.subarray(Number(j.offset), Number(j.offset) + Number(j.length))),
        );
        expect(one).toHaveLength(1);
        expect(one[0]!.fields['warc-target-uri']).toBe(j.url);
        expect(one[0]!.fields['warc-date']!.replace(/[-:T]/g, '').slice(0, 14)).toBe(stamp);
        expect(j.digest).toBe(one[0]!.fields['warc-payload-digest']!.slice(5));
        expect(parseHttp(one[0]!.block).startLine).toContain(` ${j.status}`);
        expect(key).toBe(`127.0.0.1:${s.port})${new URL(j.url!).pathname}`);
        lines++;
      }
    }
    expect(lines).toBe(responses.length);

    // wget on the same site: the same payloads for the same URLs; where its digests differ, named.
    const wget = await wgetArchive(s.origin, tempDir());
    const wrong: string[] = [];
    let compared = 0;
    for (const r of wget.filter((x) => x.fields['warc-type'] === 'response')) {
      const url = r.fields['warc-target-uri']!.replace(/^<|>$/g, '');
      const http = parseHttp(r.block);
      const payload = header(http, 'transfer-encoding') === 'chunked' ? dechunk(http.body) : http.body;
      if (r.fields['warc-payload-digest'] !== sha1Of(payload)) wrong.push(new URL(url).pathname);
      const ours = byUrl.get(url)?.[0];
      if (!ours || !http.startLine.includes(' 200 ')) continue;
      expect(parseHttp(ours.block).body.equals(payload), url).toBe(true);
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(ARCHIVE_PAGES.length);
    console.log(`wget ${wget[0]?.version}: payload digests wrong for ${wrong.join(', ') || 'none'}`);
    // Only chunked responses: the digest over the chunk framing (wget 1.21).
    expect(wrong.every((p) => p.startsWith('/chunked'))).toBe(true);
  });

  it("writes a recrawl's 304 as a server-not-modified revisit and an unchanged 200 as identical-payload-digest", async () => {
    site = await startArchiveSite();
    const dir = tempDir();
    daemon = await createDaemon(configFor(site, dir, {}, { recrawlIntervalMs: 200, robots: false }), {
      once: false,
      logger: logger(),
    });
    void daemon.run();
    const s = site;
    await waitFor(
      () =>
        s.seen.some((x) => x.path === '/etag' && x.status === 304) &&
        s.seen.filter((x) => x.path === '/plain').length >= 2,
      'a 304 and a second /plain',
    );
    await daemon.stop();
    daemon = undefined;
    const records = allRecords(join(dir, 'warc')).flatMap((f) => f.records);
    checkDigests(records);
    const byUrl = responsesByUrl(records);
    const etag = byUrl.get(`${s.origin}/etag`)!;
    expect(etag[0]!.fields['warc-type']).toBe('response');
    const revisit = etag.find((r) => r.fields['warc-type'] === 'revisit')!;
    expect(revisit.fields['warc-profile']).toBe(
      'http://netpreserve.org/warc/1.1/revisit/server-not-modified',
    );
    expect(revisit.fields['warc-refers-to-target-uri']).toBe(`${s.origin}/etag`);
    expect(revisit.fields['warc-refers-to-date']).toBe(etag[0]!.fields['warc-date']);
    expect(revisit.fields['warc-refers-to']).toBe(etag[0]!.fields['warc-record-id']);
    expect(parseHttp(revisit.block).startLine).toBe('HTTP/1.1 304 Not Modified');

    const plain = byUrl.get(`${s.origin}/plain`)!;
    expect(plain[0]!.fields['warc-type']).toBe('response');
    const same = plain[1]!;
    expect(same.fields['warc-type']).toBe('revisit');
    expect(same.fields['warc-profile']).toBe(
      'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest',
    );
    expect(same.fields['warc-payload-digest']).toBe(plain[0]!.fields['warc-payload-digest']);
    expect(same.fields['warc-refers-to-date']).toBe(plain[0]!.fields['warc-date']);
    // Headers only: the payload is the first capture's.
    expect(parseHttp(same.block).body.length).toBe(0);
    expect(existsSync(join(dir, 'warc'))).toBe(true);
  });

  it('archives what came of a reset body and of an endless one, marked WARC-Truncated, and the crawl ends', async () => {
    site = await startArchiveSite({ hostile: true });
    const dir = tempDir();
    const config = configFor(site, dir);
    daemon = await createDaemon(
      { ...config, fetch: { ...config.fetch, maxBodyBytes: 300_000 } },
      {
        once: true,
        logger: logger(),
      },
    );
    await daemon.run();
    await daemon.stop();
    daemon = undefined;
    const records = allRecords(join(dir, 'warc')).flatMap((f) => f.records);
    checkDigests(records);
    const byUrl = responsesByUrl(records);
    const reset = byUrl.get(`${site.origin}/reset`)![0]!;
    expect(reset.fields['warc-truncated']).toBe('disconnect');
    expect(parseHttp(reset.block).body.length).toBeLessThan(100_000);
    const endless = byUrl.get(`${site.origin}/endless`)![0]!;
    expect(endless.fields['warc-truncated']).toBe('length');
    expect(parseHttp(endless.block).body.length).toBe(300_000);
    // The other pages are whole.
    expect(
      parseHttp(byUrl.get(`${site.origin}/plain`)![0]!.block).body.equals(site.sent.get('/plain')!),
    ).toBe(true);
  });

  it("remembers captures from the folder's indexes: a new daemon's unchanged 200 is a revisit", async () => {
    site = await startArchiveSite();
    const s = site;
    const warc = join(tempDir(), 'warc');
    for (const dir of [tempDir(), tempDir()]) {
      daemon = await createDaemon(configFor(s, dir, { dir: warc }), { once: true, logger: logger() });
      await daemon.run();
      await daemon.stop();
      daemon = undefined;
    }
    const plain = responsesByUrl(allRecords(warc).flatMap((f) => f.records)).get(`${s.origin}/plain`)!;
    expect(plain.map((r) => r.fields['warc-type'])).toEqual(['response', 'revisit']);
    // The index keeps the second: the date referred to is the first capture's, to the second.
    expect(plain[1]!.fields['warc-refers-to-date']).toBe(
      plain[0]!.fields['warc-date']!.replace(/\.\d{3}Z$/, '.000Z'),
    );
    expect(plain[1]!.fields['warc-payload-digest']).toBe(plain[0]!.fields['warc-payload-digest']);
  });

  it('writes full responses with revisits: false', async () => {
    site = await startArchiveSite();
    const dir = tempDir();
    daemon = await createDaemon(
      configFor(site, dir, { revisits: false }, { recrawlIntervalMs: 200, robots: false }),
      { once: false, logger: logger() },
    );
    void daemon.run();
    const s = site;
    await waitFor(
      () =>
        s.seen.some((x) => x.path === '/etag' && x.status === 304) &&
        s.seen.filter((x) => x.path === '/plain').length >= 2,
      'a 304 and a second /plain',
    );
    await daemon.stop();
    daemon = undefined;
    const records = allRecords(join(dir, 'warc')).flatMap((f) => f.records);
    checkDigests(records);
    expect(records.filter((r) => r.fields['warc-type'] === 'revisit')).toEqual([]);
    const plain = responsesByUrl(records).get(`${s.origin}/plain`)!;
    expect(plain.length).toBeGreaterThanOrEqual(2);
    expect(parseHttp(plain[1]!.block).body.equals(s.sent.get('/plain')!)).toBe(true);
    const etag = responsesByUrl(records).get(`${s.origin}/etag`)!;
    expect(etag.some((r) => parseHttp(r.block).startLine === 'HTTP/1.1 304 Not Modified')).toBe(true);
  });
});
