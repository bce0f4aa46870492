/** HTTP blocks: request secrets redacted, Transfer-Encoding renamed so no reader de-chunks again. */
import type { HttpExchange } from '../../../ports/fetcher.js';

/** The records are meant to be shared. */
const SECRET_FIELDS = new Set(['authorization', 'proxy-authorization']);
export const REDACTED = 'REDACTED';
/** What a stored response's Transfer-Encoding becomes: the body in the record is de-chunked. */
export const RENAMED_TRANSFER_ENCODING = 'X-Crawld-Transfer-Encoding';

/** Keeps the auth scheme (`Bearer`, `Basic`) and hides the credentials. */
function redactAuth(value: string): string {
  const space = value.indexOf(' ');
  return space > 0 ? `${value.slice(0, space)} ${REDACTED}` : REDACTED;
}

/** Keeps each cookie's name and hides its value. */
function redactCookie(value: string): string {
  return value
    .split(';')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq < 0 ? pair : `${pair.slice(0, eq)}=${REDACTED}`;
    })
    .join(';');
}

export function requestHead(exchange: HttpExchange, redact: boolean): Buffer {
  if (!redact) return exchange.requestHead;
  const lines = exchange.requestHead.toString('latin1').split('\r\n');
  let changed = false;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (SECRET_FIELDS.has(name)) lines[i] = `${line.slice(0, colon)}: ${redactAuth(value)}`;
    else if (name === 'cookie') lines[i] = `${line.slice(0, colon)}: ${redactCookie(value)}`;
    else continue;
    changed = true;
  }
  return changed ? Buffer.from(lines.join('\r\n'), 'latin1') : exchange.requestHead;
}

export function responseHead(exchange: HttpExchange): Buffer {
  let head = `HTTP/1.1 ${exchange.status}${exchange.statusText ? ` ${exchange.statusText}` : ''}\r\n`;
  for (const [name, value] of exchange.responseHeaders) {
    const stored = name.toLowerCase() === 'transfer-encoding' ? RENAMED_TRANSFER_ENCODING : name;
    head += `${stored}: ${value}\r\n`;
  }
  return Buffer.from(`${head}\r\n`, 'latin1');
}

/** The first response field of that (lower-case) name, as received. */
function responseField(exchange: HttpExchange, lowerName: string): string | undefined {
  for (const [name, value] of exchange.responseHeaders) if (name.toLowerCase() === lowerName) return value;
  return undefined;
}

/** The response's media type without parameters, for the index ('unk' when absent, as pywb). */
export function responseMime(exchange: HttpExchange): string {
  const type = responseField(exchange, 'content-type');
  return type === undefined ? 'unk' : type.split(';', 1)[0]!.trim().toLowerCase() || 'unk';
}

/** Media types whose bytes are compressed already (images, audio, video, fonts, archives). */
const COMPRESSED_TYPES =
  /^(image\/(jpeg|png|gif|webp|avif)|video\/|audio\/|font\/woff2?$|application\/(zip|gzip|x-gzip|zstd)$)/;

/**
 * A body that came compressed (a Content-Encoding, or a compressed media type): gzip finds
 * almost nothing in it, so its record is stored (docs/archives.md, Cost).
 */
export function compressedBody(exchange: HttpExchange): boolean {
  const coding = responseField(exchange, 'content-encoding')?.trim().toLowerCase();
  if (coding !== undefined && coding !== '' && coding !== 'identity') return true;
  return COMPRESSED_TYPES.test(responseMime(exchange));
}
