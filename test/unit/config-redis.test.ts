import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/config.js';
import { issuesOf } from '../helpers/config-errors.js';

const job = (extra: Record<string, unknown> = {}) => ({ id: 'a', seeds: ['https://x.example/'], ...extra });

describe('config: frontier kind redis', () => {
  it('accepts a redis URL, a key prefix and a lease time', () => {
    const c = validateConfig({
      frontier: { kind: 'redis', url: 'redis://10.0.0.5:6380/2', keyPrefix: 'shop', leaseMs: 3000 },
      fetch: { totalTimeoutMs: 2000 },
    });
    expect(c.frontier).toMatchObject({ kind: 'redis', url: 'redis://10.0.0.5:6380/2', keyPrefix: 'shop' });
  });

  it('requires a redis:// URL and refuses the sqlite-only path', () => {
    expect(issuesOf(() => validateConfig({ frontier: { kind: 'redis' } }))).toEqual([
      "frontier.url: required when kind is 'redis' (redis://HOST:PORT/DB)",
    ]);
    expect(issuesOf(() => validateConfig({ frontier: { kind: 'redis', url: 'http://r:6379/0' } }))).toEqual([
      'frontier.url: must be a redis://HOST:PORT/DB or rediss:// URL',
    ]);
    expect(issuesOf(() => validateConfig({ frontier: { kind: 'redis', url: 'redis://r:6379/x' } }))).toEqual([
      'frontier.url: must be a redis://HOST:PORT/DB or rediss:// URL',
    ]);
    expect(
      issuesOf(() => validateConfig({ frontier: { kind: 'redis', url: 'redis://r:6379/0', path: 'f.db' } })),
    ).toEqual(["frontier.path: is for kind 'sqlite' (a redis frontier lives in Redis)"]);
  });

  it('refuses redis-only keys on other kinds and braces in the key prefix', () => {
    expect(issuesOf(() => validateConfig({ frontier: { url: 'redis://r:6379/0', keyPrefix: 'p' } }))).toEqual(
      ["frontier.url: is for kind 'redis'", "frontier.keyPrefix: is for kinds 'redis' and 'redis-cluster'"],
    );
    const braces = issuesOf(() =>
      validateConfig({ frontier: { kind: 'redis', url: 'redis://r:6379/0', keyPrefix: '{x}' } }),
    );
    expect(braces).toEqual(['frontier.keyPrefix: must be 1-64 characters without braces or spaces']);
  });

  it('takes a lease shorter than a fetch may take (the holder extends it while the fetch runs); 120 s by default', () => {
    const frontier = { kind: 'redis', url: 'redis://r:6379/0', leaseMs: 10_000 };
    expect(validateConfig({ frontier }).frontier.leaseMs).toBe(10_000);
    expect(validateConfig({ frontier: { kind: 'redis', url: 'redis://r:6379/0' } }).frontier.leaseMs).toBe(
      120_000,
    );
    expect(validateConfig({ frontier: { leaseMs: 1000 } }).frontier.leaseMs).toBe(1000);
  });

  it("checks every priority against the Redis frontier's range, only for kind redis", () => {
    const jobs = [
      job({
        seedPriority: 5000,
        extract: { follow: [{ priority: -3000 }, { priority: 2047 }], followAllLinks: { priority: 2048 } },
      }),
      job({ id: 'b', seedPriority: -2048 }),
    ];
    const redis = { kind: 'redis', url: 'redis://r:6379/0' };
    expect(issuesOf(() => validateConfig({ frontier: redis, jobs }))).toEqual([
      "jobs[0].seedPriority: must be in [-2048, 2047] with frontier kind 'redis'",
      "jobs[0].extract.follow[0].priority: must be in [-2048, 2047] with frontier kind 'redis'",
      "jobs[0].extract.followAllLinks.priority: must be in [-2048, 2047] with frontier kind 'redis'",
    ]);
    expect(validateConfig({ jobs }).jobs).toHaveLength(2);
  });

  it('takes kind redis-cluster with HOST:PORT nodes, and the same lease and priority rules', () => {
    const nodes = ['10.0.0.5:6379', 'redis-node-2:6380', '[::1]:7000'];
    const ok = validateConfig({ frontier: { kind: 'redis-cluster', nodes, keyPrefix: 'c' } });
    expect(ok.frontier).toMatchObject({ kind: 'redis-cluster', nodes, keyPrefix: 'c' });
    expect(issuesOf(() => validateConfig({ frontier: { kind: 'redis-cluster' } }))).toEqual([
      'frontier.nodes: required when kind is \'redis-cluster\' (["HOST:PORT", ...])',
    ]);
    expect(
      issuesOf(() =>
        validateConfig({ frontier: { kind: 'redis-cluster', nodes: ['r:6379', 'r', 'r:99999'] } }),
      ),
    ).toEqual([
      "frontier.nodes[1]: must be HOST:PORT, got 'r'",
      "frontier.nodes[2]: must be HOST:PORT, got 'r:99999'",
    ]);
    expect(
      issuesOf(() =>
        validateConfig({ frontier: { kind: 'redis-cluster', nodes, url: 'redis://r:6379/0', path: 'f.db' } }),
      ),
    ).toEqual([
      "frontier.url: is for kind 'redis'",
      "frontier.path: is for kind 'sqlite' (a redis frontier lives in Redis)",
    ]);
    expect(
      issuesOf(() => validateConfig({ frontier: { kind: 'redis', url: 'redis://r:6379/0', nodes } })),
    ).toEqual(["frontier.nodes: is for kind 'redis-cluster'"]);
    expect(
      issuesOf(() =>
        validateConfig({
          frontier: { kind: 'redis-cluster', nodes, leaseMs: 1000 },
          jobs: [job({ seedPriority: 5000 })],
        }),
      ),
    ).toEqual(["jobs[0].seedPriority: must be in [-2048, 2047] with frontier kind 'redis-cluster'"]);
  });
});
