/**
 * The WARC sink's files and formats without a crawl: a torn last member is cut at start, files
 * roll over before a group would pass maxFileBytes (a bigger group gets its own file), an
 * orphan of a dead process on this host is closed, another live instance's file is left alone;
 * Base32, SURT and redaction on known values.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { surt } from '../../src/adapters/sink/warc/cdxj.js';
import { WarcFiles } from '../../src/adapters/sink/warc/files.js';
import { requestHead, responseHead } from '../../src/adapters/sink/warc/http-block.js';
import { base32, gzipMember, serialiseRecord } from '../../src/adapters/sink/warc/warc-record.js';
import type { HttpExchange } from '../../src/ports/fetcher.js';
import { tempDir } from '../helpers/cli.js';
import { base32Slow, readWarcGz } from '../helpers/warc.js';

const member = (type: string, size: number) =>
  gzipMember(
    serialiseRecord(
      [
        ['WARC-Type', type],
        ['WARC-Target-URI', 'http://a.example/'],
      ],
      [Buffer.alloc(size, 'x')],
    ),
    1,
  );

function files(dir: string, instance = 'i1', maxFileBytes = 4096): WarcFiles {
  return new WarcFiles({ dir, prefix: 't', instance, maxFileBytes, warcinfo: () => member('warcinfo', 10) });
}

describe('WarcFiles', () => {
  it('closes a file before a group would pass maxFileBytes; a bigger group gets a file of its own', () => {
    const dir = tempDir();
    const f = files(dir);
    f.recoverLeftovers();
    const small = member('response', 200);
    for (let i = 0; i < 60; i++) f.append([{ data: small }, { data: small }]);
    const big = randomBytes(5000);
    f.append([{ data: big }]);
    f.append([{ data: small }]);
    f.release();
    const info = member('warcinfo', 10).length;
    const sizes = readdirSync(dir)
      .filter((n) => n.endsWith('.warc.gz'))
      .sort()
      .map((n) => {
        expect(n).toMatch(/^t-\d{17}-\d{5}-i1\.warc\.gz$/);
        return statSync(join(dir, n)).size;
      });
    // Every file within the limit, but the one of the big group: its warcinfo and the group.
    expect(sizes.filter((s) => s > 4096)).toEqual([info + big.length]);
    // No file closed early: each holds as many pairs as fit.
    const pairs = Math.floor((4096 - info) / (2 * small.length));
    expect(sizes[0]).toBe(info + pairs * 2 * small.length);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(sizes.length * info + 121 * small.length + big.length);
    expect(readdirSync(dir).filter((n) => n.endsWith('.cdxj'))).toHaveLength(sizes.length);
  });

  it('cuts a torn last member at start, indexes and closes the file', () => {
    const dir = tempDir();
    const f = files(dir, 'i1', 1_000_000);
    f.recoverLeftovers();
    f.append([{ data: member('response', 100) }]);
    const open = readdirSync(dir).find((n) => n.endsWith('.open'))!;
    const whole = statSync(join(dir, open)).size;
    // What a kill in the middle of a write leaves: half a member.
    const torn = member('response', 100);
    appendFileSync(join(dir, open), torn.subarray(0, torn.length >> 1));
    const again = files(dir, 'i1', 1_000_000);
    const closed = again.recoverLeftovers();
    expect(closed).toEqual([
      { name: open.replace(/\.open$/, ''), records: 2, bytes: whole, recovered: true },
    ]);
    expect(readWarcGz(join(dir, open.replace(/\.open$/, '')))).toHaveLength(2);
    // The next file takes the next serial.
    again.append([{ data: member('response', 1) }]);
    again.release();
    expect(readdirSync(dir).filter((n) => /-00002-i1\.warc\.gz$/.test(n))).toHaveLength(1);
  });

  it("closes the .open file of a dead process of this host, and leaves a live one's", () => {
    const dir = tempDir();
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(join(dir, '.t-dead.owner'), JSON.stringify({ host: hostname(), pid: gone }));
    writeFileSync(join(dir, '.t-live.owner'), JSON.stringify({ host: hostname(), pid: process.ppid }));
    writeFileSync(join(dir, '.t-far.owner'), JSON.stringify({ host: 'elsewhere', pid: gone }));
    for (const who of ['dead', 'live', 'far']) {
      writeFileSync(join(dir, `t-20261207000000000-00001-${who}.warc.gz.open`), member('warcinfo', 5));
    }
    files(dir).recoverLeftovers();
    const left = readdirSync(dir)
      .filter((n) => n.endsWith('.open'))
      .sort();
    expect(left).toEqual([
      't-20261207000000000-00001-far.warc.gz.open',
      't-20261207000000000-00001-live.warc.gz.open',
    ]);
    expect(readdirSync(dir)).toContain('t-20261207000000000-00001-dead.warc.gz');
    expect(readdirSync(dir)).toContain('t-20261207000000000-00001-dead.cdxj');
    expect(readFileSync(join(dir, '.t-i1.owner'), 'utf8')).toContain(String(process.pid));
  });
});

describe('WARC formats', () => {
  it('Base32 as RFC 4648 (no padding) and as the slow reference', () => {
    expect(base32(Buffer.from('foobar'))).toBe('MZXW6YTBOI');
    expect(base32(Buffer.from('f'))).toBe('MY');
    const bytes = Buffer.from(Array.from({ length: 20 }, (_, i) => (i * 37) & 255));
    expect(base32(bytes)).toBe(base32Slow(bytes));
  });

  it('SURT keys as pywb writes them', () => {
    expect(surt('http://www.Example.com/Path?b=2&a=1')).toBe('com,example)/path?a=1&b=2');
    expect(surt('https://127.0.0.1:8931/p/1')).toBe('127.0.0.1:8931)/p/1');
    expect(surt('http://a.b.example.org/')).toBe('org,example,b,a)/');
  });

  it('redacts credentials and cookie values, and renames Transfer-Encoding', () => {
    const ex = {
      requestHead: Buffer.from(
        'GET / HTTP/1.1\r\nhost: a\r\nauthorization: Bearer abc\r\nproxy-authorization: xyz\r\ncookie: a=1; b=2\r\n\r\n',
      ),
      status: 200,
      statusText: 'OK',
      responseHeaders: [
        ['Transfer-Encoding', 'chunked'],
        ['Content-Type', 'text/html'],
      ],
    } as unknown as HttpExchange;
    expect(requestHead(ex, true).toString()).toBe(
      'GET / HTTP/1.1\r\nhost: a\r\nauthorization: Bearer REDACTED\r\nproxy-authorization: REDACTED\r\ncookie: a=REDACTED; b=REDACTED\r\n\r\n',
    );
    expect(requestHead(ex, false)).toBe(ex.requestHead);
    expect(responseHead(ex).toString()).toBe(
      'HTTP/1.1 200 OK\r\nX-Crawld-Transfer-Encoding: chunked\r\nContent-Type: text/html\r\n\r\n',
    );
  });
});
