import { describe, expect, it } from 'vitest';
import { hasRepeatedRun, isDeeperPath, isPathPrefix, segmentCount } from '../../../src/core/traps/paths.js';
import { splitKey, urlPattern } from '../../../src/core/traps/url-pattern.js';

describe('repeated path runs (Heritrix PathologicalPathDecideRule, BUbiNG DuplicateSegmentsLessThan(3))', () => {
  it.each([
    ['/docs/', false],
    ['/docs/docs/', false],
    ['/docs/docs/docs/', true],
    ['/a/docs/docs/docs/x.html', true],
    ['/a/b/a/b/', false],
    ['/a/b/a/b/a/b/', true],
    ['/a/b/c/a/b/c/a/b/c', true],
    ['/x/a/x/b/x/c/', false],
    ['/2026/12/2026/12/', false],
    ['/', false],
  ])('%s repeats a run more than twice: %s', (path, repeated) => {
    expect(hasRepeatedRun(path, 2)).toBe(repeated);
  });

  it('takes the number of repeats allowed', () => {
    expect(hasRepeatedRun('/a/a/', 1)).toBe(true);
    expect(hasRepeatedRun('/a/a/a/a/', 3)).toBe(true);
    expect(hasRepeatedRun('/a/a/a/', 3)).toBe(false);
  });

  it('counts segments and ancestors', () => {
    expect(segmentCount('/a/b/')).toBe(2);
    expect(segmentCount('/a/b')).toBe(2);
    expect(segmentCount('/')).toBe(0);
    expect(isPathPrefix('/docs/', '/docs/docs/')).toBe(true);
    expect(isPathPrefix('/docs', '/docs/x')).toBe(true);
    expect(isPathPrefix('/doc', '/docs/x')).toBe(false);
    expect(isPathPrefix('/docs/', '/docs/')).toBe(false);
  });

  it('tells a deeper directory from an index file in the same one', () => {
    expect(isDeeperPath('/docs/', '/docs/docs/')).toBe(true);
    expect(isDeeperPath('/docs/', '/docs/docs/intro.html')).toBe(true);
    expect(isDeeperPath('/docs', '/docs/x')).toBe(true);
    expect(isDeeperPath('/', '/index.html')).toBe(false);
    expect(isDeeperPath('/docs/', '/docs/index.html')).toBe(false);
    expect(isDeeperPath('/doc', '/docs/x')).toBe(false);
  });
});

describe('URL patterns', () => {
  it('abstracts numbers and keeps parameter names, not values', () => {
    expect(urlPattern('/events/2026/12/', '')).toBe('/events/#/#/');
    expect(urlPattern('/events/2027/1/', '')).toBe('/events/#/#/');
    expect(urlPattern('/shop', '?size=m&color=red')).toBe('/shop?color&size');
    expect(urlPattern('/shop', '?color=blue&size=l&color=x')).toBe('/shop?color&size');
    expect(urlPattern('/list', '?page=3&visit=ab12', (n) => n === 'visit')).toBe('/list?page');
  });

  it('splits a canonical key without parsing it', () => {
    expect(splitKey('http://a.test:8080/x/y?q=1')).toEqual({
      host: 'a.test:8080',
      path: '/x/y',
      search: '?q=1',
    });
    expect(splitKey('https://u:p@a.test/')).toEqual({ host: 'a.test', path: '/', search: '' });
  });
});
