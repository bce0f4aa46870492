import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultMaxPages, findChromium } from '../../src/adapters/fetch/browser/browser-options.js';
import { validateConfig } from '../../src/config/config.js';
import { tempDir } from '../helpers/cli.js';

const MiB = 1024 * 1024;

describe('fetch.browser.maxPages default', () => {
  it('is one page per 150 MiB free, at most 4 per core, at least 1', () => {
    expect(defaultMaxPages(20_000 * MiB, 2)).toBe(8);
    expect(defaultMaxPages(20_000 * MiB, 4)).toBe(16);
    expect(defaultMaxPages(600 * MiB, 8)).toBe(4);
    expect(defaultMaxPages(149 * MiB, 8)).toBe(1);
    expect(defaultMaxPages(0, 0)).toBe(1);
  });
});

describe('findChromium', () => {
  it('takes the first executable candidate on PATH, skipping non-executable files', () => {
    const dir = tempDir();
    const a = join(dir, 'a');
    const b = join(dir, 'b');
    mkdirSync(a);
    mkdirSync(b);
    writeFileSync(join(a, 'chromium'), '#!/bin/sh\n');
    chmodSync(join(a, 'chromium'), 0o644);
    writeFileSync(join(b, 'chromium'), '#!/bin/sh\n');
    chmodSync(join(b, 'chromium'), 0o755);
    expect(findChromium(`${a}:${b}`)).toBe(join(b, 'chromium'));
    expect(findChromium(a)).toBeUndefined();
  });
});

describe('jobs[].render', () => {
  const base = { jobs: [{ id: 'j', seeds: ['http://shop.example/'] }] };
  it('defaults to the http path, and fills the browser defaults', () => {
    expect(validateConfig(base).jobs[0]?.render).toEqual({
      kind: 'http',
      samplePages: 3,
      recheckEvery: 20,
      waitUntil: 'load',
      timeoutMs: 30_000,
      blockResources: ['image', 'media', 'font', 'stylesheet'],
    });
    expect(validateConfig(base).fetch.browser).toEqual({ pagesPerContext: 50, maxRssBytes: 2_147_483_648 });
  });
  it('refuses unknown kinds, waits and resource types, naming the field', () => {
    const bad = (render: unknown) => () =>
      validateConfig({ jobs: [{ id: 'j', seeds: ['http://shop.example/'], render }] });
    expect(bad({ kind: 'chrome' })).toThrow(/jobs\.0\.render\.kind|jobs\[0\]\.render\.kind/);
    expect(bad({ kind: 'browser', waitUntil: 'idle' })).toThrow(/render\.waitUntil/);
    expect(bad({ kind: 'browser', blockResources: ['script'] })).toThrow(/render\.blockResources/);
    expect(bad({ kind: 'browser', timeoutMs: 0 })).toThrow(/render\.timeoutMs/);
    expect(bad({ kind: 'auto', samplePages: 0 })).toThrow(/render\.samplePages/);
    expect(bad({ kind: 'auto', recheckEvery: 1 })).toThrow(/render\.recheckEvery/);
  });
});

describe('pageFetcher without Chromium', () => {
  it('refuses a config with a browser job, and fails browser pages of a later job as browser_unavailable', async () => {
    const { pageFetcher } = await import('../../src/daemon/browser-factory.js');
    const { UndiciFetcher } = await import('../../src/adapters/fetch/undici-fetcher.js');
    const { TypedEmitter } = await import('../../src/core/events.js');
    const path = process.env.PATH;
    process.env.PATH = '';
    const http = new UndiciFetcher();
    try {
      const job = { id: 'j', seeds: ['http://shop.example/'] };
      expect(() =>
        pageFetcher(
          validateConfig({ jobs: [{ ...job, render: { kind: 'browser' } }] }),
          http,
          new TypedEmitter(),
        ),
      ).toThrow(/fetch\.browser\.executablePath/);
      const pages = pageFetcher(validateConfig({ jobs: [job] }), http, new TypedEmitter());
      const render = validateConfig({ jobs: [{ ...job, render: { kind: 'browser' } }] }).jobs[0]?.render;
      await expect(
        pages.fetch({ url: 'http://shop.example/', ...(render ? { render } : {}) }),
      ).rejects.toMatchObject({ reason: 'browser_unavailable', retryable: true });
    } finally {
      process.env.PATH = path;
      await http.close();
    }
  });
});
