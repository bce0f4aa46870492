/** A WarcSink as the unit tests make it: one file per folder, level 1, revisits on, secrets redacted. */
import { type WarcObserver, WarcSink, type WarcSinkOptions } from '../../src/adapters/sink/warc/warc-sink.js';

const quiet: WarcObserver = {
  records: () => {},
  fileClosed: () => {},
  openFileBytes: () => {},
  error: () => {},
};

export function testWarcSink(
  dir: string,
  offLoop: boolean,
  observer: Partial<WarcObserver> = {},
  options: Partial<WarcSinkOptions> = {},
): WarcSink {
  return new WarcSink({
    dir,
    prefix: 't',
    instance: 'i1',
    maxFileBytes: 1e9,
    gzipLevel: 1,
    revisits: true,
    revisitMemory: 100,
    redactSecrets: true,
    info: [['software', 'test']],
    offLoop,
    observer: { ...quiet, ...observer },
    ...options,
  });
}
