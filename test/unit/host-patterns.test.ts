/**
 * Scope host matching compiled into lookups (src/core/host-patterns.ts) answers exactly as
 * matching each pattern in turn, and stays fast with thousands of patterns (a job seeded
 * with thousands of hosts).
 */
import { describe, expect, it } from 'vitest';
import { inScope, matchesHostPattern } from '../../src/core/url.js';

const scope = (hosts: string[]) => ({ hosts, include: [], exclude: [], maxDepth: 10 });

describe('compiled scope hosts', () => {
  const patterns = [
    'example.com',
    'Shop.Example.org:8080',
    '*.blog.example.net',
    '*:9000',
    'a.example:81',
    '*.deep.example:82',
    '[::1]:8443',
  ];
  const hosts = [
    'example.com:8000',
    'www.example.com:8000',
    'shop.example.org:8080',
    'shop.example.org:8081',
    'blog.example.net:1',
    'x.blog.example.net:2',
    'y.x.blog.example.net:3',
    'otherblog.example.net:4',
    'anything.test:9000',
    'a.example:81',
    'a.example:82',
    'q.deep.example:82',
    'deep.example:82',
    'deep.example:83',
    '[::1]:8443',
    'example.com.:7000',
  ];
  it('matches a host if and only if some pattern does, for every subset of the patterns', () => {
    for (let mask = 1; mask < 1 << patterns.length; mask++) {
      const subset = patterns.filter((_, i) => mask & (1 << i));
      for (const host of hosts) {
        const expected = subset.some((p) => matchesHostPattern(host, p));
        expect(inScope(`http://${host}/x`, 0, scope(subset)).ok, `${host} in [${subset.join(', ')}]`).toBe(
          expected,
        );
      }
    }
  });

  it('answers "*" for every host and nothing for an empty list', () => {
    expect(inScope('http://any.where:1/', 0, scope(['*'])).ok).toBe(true);
    expect(inScope('http://any.where:1/', 0, scope([]))).toEqual({ ok: false, reason: 'host' });
  });

  // The time per link against 20,000 hosts and against 1 (their ratio ~1: compiled look-ups,
  // not a scan) is bench/worst-inputs.mjs's figure (scope).
  it('checks a link against 20,000 seed hosts', () => {
    const many = scope(Array.from({ length: 20_000 }, (_, i) => `127.0.0.1:${10_000 + i}`));
    let ok = 0;
    for (let i = 0; i < 20_000; i++) if (inScope(`http://127.0.0.1:${10_000 + i}/p/1`, 1, many).ok) ok++;
    expect(ok).toBe(20_000);
    expect(inScope('http://127.0.0.1:9999/p/1', 1, many)).toEqual({ ok: false, reason: 'host' });
  });
});
