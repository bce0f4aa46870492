/**
 * One ENQUEUE_MANY call (lua/enqueue-many.lua) as two binary strings read with struct.unpack,
 * not three to seven arguments a request: each argument costs ioredis and Redis an object.
 */
import { hash } from 'node:crypto';
import type { PreparedRequest } from '../frontier-common.js';
import { packUrl } from './codec.js';
import { ByteWriter, writeHead, writeTail } from './task-record.js';

/**
 * Hosts: per host, `>I4c0I4I4`: its name, its number of requests and their size in bytes in
 * the requests string. Requests, in host order: `>c11hBI4c0` hash (11 characters), priority,
 * flags, the new record's head (task-record.ts); flags 0 for the usual request (ready now,
 * not forced, no record tail), else 2 (+1 when forced) and `>dI4c0`: notBefore and the
 * record's tail (empty when none).
 */
export function encodeEnqueue(
  byHost: ReadonlyMap<string, readonly PreparedRequest[]>,
  count: number,
  now: number,
): [Buffer, Buffer] {
  const hosts = new ByteWriter(64 * byHost.size);
  const reqs = new ByteWriter(96 * count);
  for (const [host, rs] of byHost) {
    const n = Buffer.byteLength(host, 'utf8');
    hosts.u32(n);
    hosts.text(host, n);
    hosts.u32(rs.length);
    const start = reqs.length;
    for (const r of rs) writeRequest(reqs, r, host, now);
    hosts.u32(reqs.length - start);
  }
  return [hosts.take(), reqs.take()];
}

function writeRequest(w: ByteWriter, r: PreparedRequest, host: string, now: number): void {
  const ready = r.notBefore <= now;
  const requestUrl = r.requestUrl === undefined ? undefined : packUrl(r.requestUrl, host);
  w.text(hashOf(r), 11, 'latin1');
  w.i16(r.priority);
  const usual = ready && !r.force && requestUrl === undefined;
  w.u8(usual ? 0 : 2 + (r.force ? 1 : 0));
  const at = w.length;
  w.u32(0);
  writeHead(w, {
    ready,
    url: packUrl(r.url, host),
    jobId: r.jobId,
    priority: r.priority,
    depth: r.depth,
    requestUrl,
  });
  w.setU32(at, w.length - at - 4);
  if (usual) return;
  w.f64(r.notBefore);
  const tailAt = w.length;
  w.u32(0);
  if (requestUrl !== undefined) writeTail(w, requestUrl);
  w.setU32(tailAt, w.length - tailAt - 4);
}

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** A digest's 11th base64url character → the 11th of its first 8 bytes alone (their last 4
 *  bits, then two zero bits). */
const LAST = new Map([...B64URL].map((c, i) => [c, B64URL[i & 0x3c]!]));

/** 64 bits of SHA-1 over (job, url), 11 base64url characters (16 bytes in Redis); collisions probed in Lua. */
export function hashOf(r: PreparedRequest): string {
  const b = hash('sha1', `${r.jobId}\n${r.url}`, 'base64url');
  return b.slice(0, 10) + LAST.get(b[10]!)!;
}
