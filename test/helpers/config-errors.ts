import { ConfigError } from '../../src/core/errors.js';

/** The issues of the ConfigError `fn` throws; fails the test if it throws nothing or something else. */
export function issuesOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return [...err.issues];
    throw err;
  }
  throw new Error('expected a ConfigError');
}
