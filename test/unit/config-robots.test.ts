import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/config.js';
import { compileJob } from '../../src/daemon/jobs.js';

const job = (extra: Record<string, unknown>) =>
  validateConfig({ jobs: [{ id: 'j', seeds: ['https://a.test/'], ...extra }] });

describe('jobs[].robots', () => {
  it('true, false and the object form compile to the runner settings; the token follows the job User-Agent', () => {
    const on = compileJob(job({}).jobs[0]!, 'crawld/0.1 (+https://x)');
    expect(on).toMatchObject({ robots: true, robotsMeta: true, dropNoindex: false, robotsToken: 'crawld' });
    expect(compileJob(job({ robots: false }).jobs[0]!)).toMatchObject({ robots: false, robotsMeta: false });
    expect(compileJob(job({ robots: { meta: false } }).jobs[0]!)).toMatchObject({
      robots: true,
      robotsMeta: false,
    });
    expect(compileJob(job({ robots: { dropNoindex: true } }).jobs[0]!)).toMatchObject({
      robotsMeta: true,
      dropNoindex: true,
    });
    const ua = compileJob(
      job({ request: { headers: { 'User-Agent': 'ShopBot/2.0' } } }).jobs[0]!,
      'crawld/0.1',
    );
    expect(ua.robotsToken).toBe('shopbot');
  });

  it('an unknown key or a wrong type is refused, naming the field', () => {
    expect(() => job({ robots: { metaa: true } })).toThrow(/robots/);
    expect(() => job({ robots: 'yes' })).toThrow(/robots/);
    expect(() => validateConfig({ politeness: { robotsRetryMs: 0 } })).toThrow(/politeness\.robotsRetryMs/);
  });
});
