import { describe, expect, it } from 'vitest';
import { createLogger, redactUrl } from '../../src/observe/logger.js';
import { pause } from '../helpers/wait.js';

describe('logger', () => {
  it('survives a line logged after it ended (an uncaught stream error would fail this run)', async () => {
    const logger = createLogger({ level: 'info', instanceId: 't' });
    await new Promise<void>((r) => logger.on('finish', () => r()).end());
    let uncaught: unknown;
    const onUncaught = (e: unknown) => {
      uncaught = e;
    };
    process.prependListener('uncaughtException', onUncaught);
    try {
      expect(() => logger.info('late line')).not.toThrow();
      await pause(50, 'nothing may happen: a stream error would be an uncaught exception by then');
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    expect(uncaught).toBeUndefined();
  });
});

describe('redactUrl', () => {
  it('drops credentials, query and fragment, keeping a readable ellipsis', () => {
    expect(redactUrl('https://user:pw@shop.test:8443/a/b?token=s3cr3t#frag')).toBe(
      'https://shop.test:8443/a/b?…',
    );
    expect(redactUrl('http://shop.test/')).toBe('http://shop.test/');
    expect(redactUrl('not a url')).toBe('(invalid url)');
  });
});
