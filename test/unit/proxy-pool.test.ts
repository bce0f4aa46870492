import { describe, expect, it } from 'vitest';
import { bypassesProxy, ProxyPool, proxySettingsFromEnv } from '../../src/adapters/fetch/proxy.js';
import { ProxyError } from '../../src/core/errors.js';

const AGENT = { connections: 1, headersTimeout: 1000, bodyTimeout: 1000, connectTimeoutMs: 1000 };

describe('ProxyPool', () => {
  it('rotates, takes a failed proxy out for a doubling while, and brings it back', async () => {
    let now = 0;
    const pool = new ProxyPool(['http://127.0.0.1:1', 'http://127.0.0.1:2'], AGENT, [0, 1], () => now);
    try {
      expect([pool.pick().index, pool.pick().index, pool.pick().index]).toEqual([0, 1, 0]);
      pool.pick().succeeded(); // 1
      const zero = pool.pick();
      expect(zero.index).toBe(0);
      zero.failed(); // out for 5 s
      expect([pool.pick().index, pool.pick().index]).toEqual([1, 1]);
      now = 5_000;
      const again = pool.pick();
      expect(again.index).toBe(0); // back in rotation, fails again: out for 10 s
      again.failed();
      now = 14_999;
      expect(pool.pick().index).toBe(1);
      // Both out: no direct fallback, a ProxyError (the task retries later).
      pool.pick().failed();
      expect(() => pool.pick()).toThrow(ProxyError);
      now = 15_000;
      expect(pool.pick().index).toBe(0);
    } finally {
      await pool.close();
    }
  });
});

describe('proxy environment', () => {
  it('reads upper case before lower case, and NO_PROXY as names, suffixes, ports and *', () => {
    const s = proxySettingsFromEnv({
      HTTP_PROXY: 'http://a:1',
      http_proxy: 'http://b:1',
      https_proxy: 'http://c:1',
      no_proxy: 'x.test, .y.test,z.test:8080',
    });
    expect(s).toEqual({
      http: ['http://a:1'],
      https: ['http://c:1'],
      noProxy: ['x.test', '.y.test', 'z.test:8080'],
    });
    expect(bypassesProxy(s.noProxy, 'x.test', 80)).toBe(true);
    expect(bypassesProxy(s.noProxy, 'sub.x.test', 80)).toBe(true);
    expect(bypassesProxy(s.noProxy, 'notx.test', 80)).toBe(false);
    expect(bypassesProxy(s.noProxy, 'a.y.test', 443)).toBe(true);
    expect(bypassesProxy(s.noProxy, 'z.test', 8080)).toBe(true);
    expect(bypassesProxy(s.noProxy, 'z.test', 80)).toBe(false);
    expect(bypassesProxy(['*'], 'anything', 1)).toBe(true);
  });
});
