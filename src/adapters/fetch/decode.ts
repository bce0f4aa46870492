/** Byte caps on both sides of the decoders: no endless body or decompression bomb passes its cap. */
import { pipeline, Readable, type Transform } from 'node:stream';
import zlib from 'node:zlib';
import { BodyTooLargeError, DecodedTooLargeError, DecodeError } from '../../core/errors.js';

export type Coding = 'gzip' | 'deflate' | 'br';

export interface BodyLimits {
  readonly maxBodyBytes: number;
  readonly maxDecodedBytes: number;
  /** Cut a body at the caps and return its head instead of failing. @default false */
  readonly truncateBody?: boolean;
}

export interface DecodedBody {
  readonly body: Buffer;
  readonly wireBytes: number;
}

/** Decoders in run order (last applied first); DecodeError for codings we did not offer. */
export function parseContentEncoding(header: string | undefined): Coding[] {
  if (!header) return [];
  const codings: Coding[] = [];
  for (const raw of header.split(',')) {
    const c = raw.trim().toLowerCase();
    if (c === '' || c === 'identity') continue;
    if (c === 'gzip' || c === 'x-gzip') codings.push('gzip');
    else if (c === 'deflate' || c === 'br') codings.push(c);
    else throw new DecodeError(`unsupported Content-Encoding ${JSON.stringify(c)}`);
  }
  return codings.reverse();
}

/** RFC 1950 header. */
function looksLikeZlib(head: Buffer): boolean {
  const cmf = head[0];
  const flg = head[1];
  return cmf !== undefined && flg !== undefined && (cmf & 0x0f) === 8 && ((cmf << 8) | flg) % 31 === 0;
}

function createDecoder(coding: Coding, head: Buffer): Transform {
  if (coding === 'gzip') return zlib.createGunzip();
  if (coding === 'br') return zlib.createBrotliDecompress();
  // 'deflate' is meant to be zlib-wrapped, but some servers send raw deflate: sniff it.
  return looksLikeZlib(head) ? zlib.createInflate() : zlib.createInflateRaw();
}

async function* countWire(
  source: AsyncIterable<Buffer>,
  limits: BodyLimits,
  onBytes: (n: number) => number,
): AsyncGenerator<Buffer> {
  for await (const chunk of source) {
    const total = onBytes(chunk.length);
    if (total > limits.maxBodyBytes) {
      if (!limits.truncateBody)
        throw new BodyTooLargeError(`body exceeds maxBodyBytes ${limits.maxBodyBytes}`);
      // The head up to the cap; returning ends the read and releases the socket.
      yield chunk.subarray(0, chunk.length - (total - limits.maxBodyBytes));
      return;
    }
    yield chunk;
  }
}

/** The decoder starts with the first input: an empty body with a Content-Encoding is valid. */
async function* decodeStage(input: AsyncIterable<Buffer>, coding: Coding): AsyncGenerator<Buffer> {
  const it = input[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let headBytes = 0;
  while (headBytes < 2) {
    const r = await it.next();
    if (r.done) break;
    head.push(r.value);
    headBytes += r.value.length;
  }
  if (headBytes === 0) return;

  // Upstream errors (caps, socket) pass unchanged; anything else the decoder throws is corrupt input.
  let upstreamError: unknown;
  const rest = (async function* () {
    try {
      yield* head;
      for (;;) {
        const r = await it.next();
        if (r.done) return;
        yield r.value;
      }
    } catch (err) {
      upstreamError = err;
      throw err;
    } finally {
      await it.return?.();
    }
  })();

  const decoder = createDecoder(coding, head.length === 1 ? head[0]! : Buffer.concat(head));
  // Failures surface through the decoder's iterator below.
  pipeline(Readable.from(rest, { objectMode: false }), decoder, () => {});
  try {
    for await (const chunk of decoder) yield chunk as Buffer;
  } catch (err) {
    if (err === upstreamError) throw err;
    throw new DecodeError(`corrupt ${coding} body: ${(err as Error).message}`, { cause: err });
  } finally {
    decoder.destroy();
  }
}

export async function readBody(
  source: AsyncIterable<Buffer>,
  codings: readonly Coding[],
  limits: BodyLimits,
): Promise<DecodedBody> {
  let wireBytes = 0;
  let stream: AsyncIterable<Buffer> = countWire(source, limits, (n) => {
    wireBytes += n;
    return wireBytes;
  });
  for (const coding of codings) stream = decodeStage(stream, coding);

  const chunks: Buffer[] = [];
  let decoded = 0;
  for await (const chunk of stream) {
    decoded += chunk.length;
    if (decoded > limits.maxDecodedBytes && limits.truncateBody) {
      chunks.push(chunk.subarray(0, chunk.length - (decoded - limits.maxDecodedBytes)));
      decoded = limits.maxDecodedBytes;
      break;
    }
    if (decoded > limits.maxDecodedBytes) {
      throw new DecodedTooLargeError(
        `decoded body exceeds maxDecodedBytes ${limits.maxDecodedBytes} after ${wireBytes} wire bytes`,
      );
    }
    chunks.push(chunk);
  }
  return { body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, decoded), wireBytes };
}
