/** The WARC writer thread's entry (writer-thread.ts starts it): one WarcWriter, messages in order. */
import { parentPort } from 'node:worker_threads';
import type { HttpExchange } from '../../../ports/fetcher.js';
import { type WarcObserver, WarcWriter } from './writer.js';
import type { PostedExchange, ToWriter, WriterEvent, WriterReply } from './writer-thread.js';

const port = parentPort;
if (!port) throw new Error('writer-worker.js runs in a worker thread');

let writer: WarcWriter | undefined;
let events: WriterEvent[] = [];
const observer: WarcObserver = {
  records: (written) => events.push(['records', written]),
  fileClosed: (f) => events.push(['closed', f]),
  openFileBytes: (bytes) => events.push(['openBytes', bytes]),
  error: (reason, err) => events.push(['error', reason, cloneable(err)]),
};

/** An Error crosses to the event loop (structured clone); anything else as its text. */
function cloneable(err: unknown): Error {
  if (!(err instanceof Error)) return new Error(String(err));
  const out = new Error(err.message);
  out.stack = err.stack ?? err.message;
  const code = (err as NodeJS.ErrnoException).code;
  if (code !== undefined) Object.assign(out, { code });
  return out;
}

const buf = (u: Uint8Array): Buffer => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

function exchange(p: PostedExchange): HttpExchange {
  const { requestBody, ...rest } = p;
  return {
    ...rest,
    requestHead: buf(p.requestHead),
    body: buf(p.body),
    ...(requestBody ? { requestBody: buf(requestBody) } : {}),
  };
}

port.on('message', (m: ToWriter) => {
  let error: Error | undefined;
  try {
    if (m.t === 'open') {
      writer = new WarcWriter(m.options, observer);
      writer.open();
    } else if (m.t === 'write') {
      for (const ex of m.exs) writer?.write(exchange(ex));
    } else writer?.close();
  } catch (err) {
    error = cloneable(err);
  }
  const reply: WriterReply = { events, ...(error ? { error } : {}) };
  events = [];
  port.postMessage(reply);
});
