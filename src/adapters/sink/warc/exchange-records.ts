/** A request and a response record, or a revisit when the response adds nothing (a 304, same payload). */
import type { HttpExchange } from '../../../ports/fetcher.js';
import type { IndexEntry } from './cdxj.js';
import { compressedBody, requestHead, responseHead, responseMime } from './http-block.js';
import { newRecordId, serialiseRecord, sha1Digest, type WarcFields, warcDate } from './warc-record.js';

/** The last full capture of a URL, which a revisit refers to. */
export interface Capture {
  readonly id: string;
  readonly date: Date;
  /** `sha1:…` of its payload. */
  readonly digest: string;
}

export type RecordType = 'warcinfo' | 'request' | 'response' | 'revisit';

export interface BuiltRecord {
  readonly type: RecordType;
  readonly parts: Buffer[];
  readonly index?: Omit<IndexEntry, 'offset' | 'length'>;
  /** Its block is mostly bytes compressed already: the member stores it (gzip level 0). */
  readonly stored?: true;
}

export interface ExchangeRecords {
  readonly records: BuiltRecord[];
  /** The capture this exchange leaves for later revisits (a full 200), if any. */
  readonly capture?: Capture;
}

const PROFILE = 'http://netpreserve.org/warc/1.1/revisit/';

export interface ExchangeContext {
  readonly redactSecrets: boolean;
  readonly revisits: boolean;
  readonly last: Capture | undefined;
}

function common(ex: HttpExchange, type: RecordType, id: string, other: string): [string, string][] {
  const f: [string, string][] = [
    ['WARC-Type', type],
    ['WARC-Record-ID', id],
    ['WARC-Date', warcDate(ex.date)],
    ['WARC-Target-URI', ex.url],
  ];
  if (ex.ip) f.push(['WARC-IP-Address', ex.ip]);
  f.push(['WARC-Concurrent-To', other]);
  return f;
}

function requestRecord(ex: HttpExchange, id: string, responseId: string, redact: boolean): BuiltRecord {
  const head = requestHead(ex, redact);
  const body = ex.requestBody ?? Buffer.alloc(0);
  const fields = common(ex, 'request', id, responseId);
  fields.push(['WARC-Block-Digest', sha1Digest(head, body)]);
  if (body.length > 0) fields.push(['WARC-Payload-Digest', sha1Digest(body)]);
  fields.push(['Content-Type', 'application/http;msgtype=request']);
  return { type: 'request', parts: serialiseRecord(fields, body.length > 0 ? [head, body] : [head]) };
}

/** A 304 answers a conditional request: the content is the last capture's. */
function revisitProfile(ex: HttpExchange, ctx: ExchangeContext, payload: string): string | undefined {
  if (!ctx.revisits) return undefined;
  if (ex.status === 304) return 'server-not-modified';
  const same = ex.status === 200 && !ex.truncated && ctx.last !== undefined && ctx.last.digest === payload;
  return same ? 'identical-payload-digest' : undefined;
}

export function exchangeRecords(ex: HttpExchange, ctx: ExchangeContext): ExchangeRecords {
  const requestId = newRecordId();
  const responseId = newRecordId();
  const head = responseHead(ex);
  const payload = sha1Digest(ex.body);
  const profile = revisitProfile(ex, ctx, payload);
  const fields = common(ex, profile ? 'revisit' : 'response', responseId, requestId);
  // A revisit of identical content stores the head only; a 304's block is what came.
  const block = profile === 'identical-payload-digest' || ex.body.length === 0 ? [head] : [head, ex.body];
  if (profile) {
    fields.push(['WARC-Profile', PROFILE + profile]);
    fields.push(['WARC-Refers-To-Target-URI', ex.url]);
    if (ctx.last) {
      fields.push(['WARC-Refers-To-Date', warcDate(ctx.last.date)]);
      // A capture read back from an index has no record id.
      if (ctx.last.id) fields.push(['WARC-Refers-To', ctx.last.id]);
    }
  }
  fields.push(['WARC-Block-Digest', sha1Digest(...block)]);
  if (profile !== 'server-not-modified') fields.push(['WARC-Payload-Digest', payload]);
  if (ex.truncated) fields.push(['WARC-Truncated', ex.truncated]);
  fields.push(['Content-Type', 'application/http;msgtype=response']);
  const index = {
    url: ex.url,
    date: ex.date,
    mime: profile ? 'warc/revisit' : responseMime(ex),
    status: ex.status,
    digest: profile === 'server-not-modified' ? '-' : payload.slice(5),
  };
  const response: BuiltRecord = {
    type: profile ? 'revisit' : 'response',
    parts: serialiseRecord(fields, block),
    index,
    ...(block.length > 1 && compressedBody(ex) ? { stored: true as const } : {}),
  };
  const records = [requestRecord(ex, requestId, responseId, ctx.redactSecrets), response];
  const full = !profile && ex.status === 200 && !ex.truncated && ex.method === 'GET';
  return full ? { records, capture: { id: responseId, date: ex.date, digest: payload } } : { records };
}

/** The warcinfo record that opens a file (WARC 1.1 §6.1). */
export function warcinfoRecord(filename: string, info: WarcFields, date: Date): BuiltRecord {
  const block = Buffer.from(info.map(([k, v]) => `${k}: ${v}\r\n`).join(''), 'utf8');
  const fields: [string, string][] = [
    ['WARC-Type', 'warcinfo'],
    ['WARC-Record-ID', newRecordId()],
    ['WARC-Date', warcDate(date)],
    ['WARC-Filename', filename],
    ['WARC-Block-Digest', sha1Digest(block)],
    ['Content-Type', 'application/warc-fields'],
  ];
  return { type: 'warcinfo', parts: serialiseRecord(fields, [block]) };
}
