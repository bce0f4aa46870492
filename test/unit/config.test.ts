import { describe, expect, it } from 'vitest';
import { expandSecrets, formatPath, parseConfigText, validateConfig } from '../../src/config/config.js';
import { fetcherOptions } from '../../src/daemon/fetcher-options.js';
import { issuesOf } from '../helpers/config-errors.js';

describe('config', () => {
  it('fills every default from an empty file', () => {
    const c = parseConfigText('');
    expect(c.dataDir).toBe('./data');
    expect(c.http).toEqual({ host: '127.0.0.1', port: null, maxBodyBytes: 1_048_576 });
    expect(c.frontier.kind).toBe('sqlite');
    expect(c.fetch.allowPrivateNetworks).toBe(false);
    expect(c.sinks).toEqual([{ kind: 'jsonl' }]);
    // crawld's own breaker: opossum's cost per host made a 2,000-host crawl ~1 s slower.
    expect(c.breaker.implementation).toBe('policy');
  });

  it('sizes the connection pool per host to the concurrency ceiling unless set', () => {
    const c = parseConfigText('');
    expect(c.concurrency).toMatchObject({ maxPerHost: 256, global: 512, initialPerHost: 8 });
    expect(fetcherOptions(c).connectionsPerHost).toBe(256);
    const capped = parseConfigText('concurrency: { maxPerHost: 16 }');
    expect(fetcherOptions(capped).connectionsPerHost).toBe(16);
    // An explicit pool wins, wider or narrower.
    const own = parseConfigText('concurrency: { maxPerHost: 16 }\nfetch: { connectionsPerHost: 4 }');
    expect(fetcherOptions(own).connectionsPerHost).toBe(4);
  });

  it('applies nested defaults inside jobs', () => {
    const c = validateConfig({ jobs: [{ id: 'a', seeds: ['https://example.com/'] }] });
    const job = c.jobs[0]!;
    expect(job.scope.maxDepth).toBe(100);
    expect(job.normalise).toEqual({ stripTracking: true, sortQuery: true });
    expect(job.seedPriority).toBe(0);
  });

  it('names the path of each bad field', () => {
    const issues = issuesOf(() =>
      validateConfig({
        jobs: [{ id: 'a', seeds: ['https://ok.example/', 'ftp://nope', 'not a url'] }],
        fetch: { maxBodyBytes: -1 },
      }),
    );
    expect(issues).toContain('jobs[0].seeds[1]: must be an absolute http(s) URL');
    expect(issues).toContain('jobs[0].seeds[2]: must be an absolute http(s) URL');
    expect(issues.some((i) => i.startsWith('fetch.maxBodyBytes:'))).toBe(true);
  });

  it('jobs[].cookies: a jar by default, false or { jar: false } for none, bad bounds named', () => {
    const seeds = ['https://example.com/'];
    const jobs = validateConfig({
      jobs: [
        { id: 'a', seeds },
        { id: 'b', seeds, cookies: false },
      ],
    }).jobs;
    expect(jobs[0]!.cookies).toEqual({ jar: true, maxPerDomain: 50, maxTotal: 3000 });
    expect(jobs[1]!.cookies.jar).toBe(false);
    expect(validateConfig({ jobs: [{ id: 'c', seeds, cookies: { jar: false } }] }).jobs[0]!.cookies.jar).toBe(
      false,
    );
    const issues = issuesOf(() =>
      validateConfig({ jobs: [{ id: 'a', seeds, cookies: { maxTotal: 0, maxPerDomain: 1.5, jars: true } }] }),
    );
    expect(issues.some((i) => i.startsWith('jobs[0].cookies.maxTotal:'))).toBe(true);
    expect(issues.some((i) => i.startsWith('jobs[0].cookies.maxPerDomain:'))).toBe(true);
    expect(issues).toContain('jobs[0].cookies.jars: unknown key');
    expect(issuesOf(() => validateConfig({ fetch: { maxRefreshDelaySeconds: -1 } }))[0]).toMatch(
      /^fetch\.maxRefreshDelaySeconds:/,
    );
  });

  it('refuses unknown keys with their path', () => {
    const issues = issuesOf(() =>
      validateConfig({ jobs: [{ id: 'a', seeds: ['http://x.example/'], maxDepht: 3 }] }),
    );
    expect(issues).toEqual(['jobs[0].maxDepht: unknown key']);
  });

  it('refuses invalid regexes and wrong types', () => {
    const issues = issuesOf(() =>
      parseConfigText(`
jobs:
  - id: a
    seeds: [http://x.example/]
    scope: { include: ['(unclosed'], maxDepth: three }
`),
    );
    expect(issues).toContain('jobs[0].scope.include[0]: must be a valid regular expression');
    expect(issues.some((i) => i.startsWith('jobs[0].scope.maxDepth:'))).toBe(true);
  });

  it('reports malformed YAML clearly', () => {
    const issues = issuesOf(() => parseConfigText('jobs: [ { id: a, seeds: [ }'));
    expect(issues[0]).toMatch(/^\(file\): not valid YAML or JSON/);
  });

  it('refuses duplicate job ids', () => {
    const seeds = ['http://x.example/'];
    const issues = issuesOf(() =>
      validateConfig({
        jobs: [
          { id: 'a', seeds },
          { id: 'a', seeds },
        ],
      }),
    );
    expect(issues).toEqual(["jobs[1].id: duplicate job id 'a'"]);
  });

  it('expands secrets from the environment and refuses unset ones', () => {
    expect(expandSecrets('token: ${TOKEN}', { TOKEN: 's3cret' })).toBe('token: s3cret');
    expect(issuesOf(() => expandSecrets('token: ${MISSING}', {}))).toEqual([
      '${MISSING}: environment variable is not set',
    ]);
  });

  it('formats paths', () => {
    expect(formatPath(['jobs', 0, 'seeds', 1])).toBe('jobs[0].seeds[1]');
    expect(formatPath([])).toBe('(root)');
  });
});
