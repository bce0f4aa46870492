import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/config.js';
import { docExample } from '../helpers/config-doc.js';

/** Every key path of an object, arrays entered element-wise with [] in the path. */
function paths(value: unknown, at = ''): Set<string> {
  const out = new Set<string>();
  if (Array.isArray(value)) {
    for (const v of value) for (const p of paths(v, `${at}[]`)) out.add(p);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      // Map-like sections (field names, header names) are user data, not options.
      const key = /\.(fields|headers|cookies)$/.test(at) ? '*' : k;
      const p = `${at}.${key}`;
      out.add(p);
      for (const q of paths(v, p)) out.add(q);
    }
  }
  return out;
}

describe('docs/config.md', () => {
  it('is a valid config, with the sqlite frontier and one admin token source', () => {
    const doc = docExample();
    const { url: _u, keyPrefix: _k, nodes: _n, ...sqlite } = doc.frontier;
    const { adminTokenFile: _f, ...http } = doc.http;
    expect(() => validateConfig({ ...doc, frontier: sqlite, http })).not.toThrow();
    // And with the redis frontiers (lease longer than a fetch, as those kinds require).
    const { path: _p, nodes: _n2, ...redis } = doc.frontier;
    expect(() => validateConfig({ ...doc, http, frontier: { ...redis, kind: 'redis' } })).not.toThrow();
    const { path: _p3, url: _u3, ...cluster } = doc.frontier;
    expect(() =>
      validateConfig({ ...doc, http, frontier: { ...cluster, kind: 'redis-cluster' } }),
    ).not.toThrow();
  });

  it('names every option the schema has (a new option must be documented)', () => {
    const doc = docExample();
    const { url: _u, keyPrefix: _k, nodes: _n, ...sqlite } = doc.frontier;
    const { adminTokenFile: _f, ...http } = doc.http;
    const documented = paths(doc);
    // What the validated example holds includes every default the schema fills in.
    const withDefaults = paths(validateConfig({ ...doc, frontier: sqlite, http }));
    const missing = [...withDefaults].filter((p) => !documented.has(p));
    expect(missing).toEqual([]);
  });
});
