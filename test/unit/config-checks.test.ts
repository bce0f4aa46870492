import { describe, expect, it } from 'vitest';
import { argumentIssue } from '../../src/config/checks.js';
import { validateConfig } from '../../src/config/config.js';
import { checkBackoffOptions } from '../../src/core/backoff.js';
import { checkBreakerOptions } from '../../src/core/breaker-policy.js';
import { checkNumber, checkOneOf } from '../../src/core/check.js';
import { FakeClock } from '../../src/core/clock.js';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { AIMD_TARGET_BOUNDS, AimdLimit } from '../../src/core/limit/aimd.js';
import { issuesOf } from '../helpers/config-errors.js';

function thrown(fn: () => unknown): InvalidArgumentError {
  try {
    fn();
  } catch (err) {
    if (err instanceof InvalidArgumentError) return err;
    throw err;
  }
  throw new Error('expected an InvalidArgumentError');
}

describe('InvalidArgumentError carries what was refused', () => {
  it('the option, the value and the bound from the option table', () => {
    const err = thrown(() => new AimdLimit({ target: { kind: 'relative', ratio: 1 } }, new FakeClock()));
    expect(err.option).toBe('target.ratio');
    expect(err.value).toBe(1);
    expect(err.bound).toEqual(AIMD_TARGET_BOUNDS.ratio);
    expect(err.message).toBe('Expected `target.ratio` to be a finite number > 1, got 1');
  });

  it('a bound another option sets, by that option', () => {
    const err = thrown(() => checkBreakerOptions({ rollingCountTimeoutMs: 5, rollingCountBuckets: 10 }));
    expect(err.option).toBe('rollingCountBuckets');
    expect(err.bound).toMatchObject({ min: 1, max: 5, maxOf: 'rollingCountTimeoutMs', integer: true });
  });

  it('the values a choice may take', () => {
    const err = thrown(() => checkBackoffOptions({ jitter: 'some' as 'full' }));
    expect(err).toMatchObject({ option: 'jitter', value: 'some', oneOf: ['full', 'equal', 'none'] });
    expect(err.message).toBe("Expected `jitter` to be 'full', 'equal' or 'none', got \"some\"");
    expect(checkOneOf('k', 'a', ['a'])).toBe('a');
  });

  it('nothing structured for other misuse', () => {
    const err = new InvalidArgumentError('bad selector', { cause: new Error('x') });
    expect(err.option).toBeUndefined();
    expect(err.bound).toBeUndefined();
    expect(err.cause).toBeInstanceOf(Error);
  });
});

describe('the config check maps those fields to config paths, never the message', () => {
  it('renames the option and the options that set its bound', () => {
    const err = thrown(() =>
      checkNumber('rollingCountBuckets', 10, { min: 1, max: 5, maxOf: 'rollingCountTimeoutMs' }),
    );
    const keys = { rollingCountBuckets: 'rollingBuckets', rollingCountTimeoutMs: 'rollingWindowMs' };
    expect(argumentIssue(err, 'breaker', keys)).toEqual({
      path: ['breaker', 'rollingBuckets'],
      message: 'must be a finite number in [1, breaker.rollingWindowMs (5)], got 10',
    });
  });

  it('splits a dotted option into the path', () => {
    const err = thrown(() => checkNumber('target.ratio', 0.5, AIMD_TARGET_BOUNDS.ratio));
    expect(argumentIssue(err, 'concurrency', {}).path).toEqual(['concurrency', 'target', 'ratio']);
  });

  it('keeps the section and the message of an error without fields', () => {
    const err = new InvalidArgumentError('Expected something else');
    expect(argumentIssue(err, 'retry', {})).toEqual({ path: ['retry'], message: 'Expected something else' });
  });

  it('a message that merely looks like a bound does not decide the path', () => {
    // The old check parsed "Expected `x` to be ..." out of the message.
    const err = new InvalidArgumentError('Expected `maxMs` to be >= 1, got 0');
    expect(argumentIssue(err, 'retry', { maxMs: 'maxDelayMs' }).path).toEqual(['retry']);
  });

  it('reports cross-field bounds at the field, naming the other field', () => {
    expect(issuesOf(() => validateConfig({ breaker: { rollingWindowMs: 5, rollingBuckets: 10 } }))).toEqual([
      'breaker.rollingBuckets: must be an integer in [1, breaker.rollingWindowMs (5)], got 10',
    ]);
    expect(
      issuesOf(() => validateConfig({ hostBackoff: { initialPauseMs: 10_000, maxPauseMs: 5000 } })),
    ).toEqual([
      'hostBackoff.initialPauseMs: must be an integer in [0, hostBackoff.maxPauseMs (5000)], got 10000',
    ]);
    expect(
      issuesOf(() => validateConfig({ breaker: { resetTimeoutMs: 5000, maxResetTimeoutMs: 1000 } })),
    ).toEqual([
      'breaker.maxResetTimeoutMs: must be an integer in [breaker.resetTimeoutMs (5000), 2147483647], got 1000',
    ]);
  });

  it('says a bound the same way whether zod or the algorithm refuses it', () => {
    expect(issuesOf(() => validateConfig({ concurrency: { increase: 0.5 } }))).toEqual([
      'concurrency.increase: must be an integer >= 1, got 0.5',
    ]);
    expect(
      issuesOf(() => validateConfig({ concurrency: { target: { kind: 'relative', ratio: 1 } } })),
    ).toEqual(['concurrency.target.ratio: must be a finite number > 1, got 1']);
  });
});
