/** SSRF checks before sending; direct connections are checked again after DNS (guarded-lookup.ts). */
import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { type AddressPolicy, checkAddress, parseHostLiteral } from '../../core/address.js';
import { BlockedAddressError } from '../../core/errors.js';
import { guardedLookup } from './guarded-lookup.js';

/** First half of the SSRF guard: literal IP hosts are refused before any socket exists. */
export function checkLiteralHost(policy: AddressPolicy, url: URL): void {
  const ip = parseHostLiteral(url.hostname);
  if (ip === undefined) return;
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const { allowed, range } = checkAddress(policy, ip, port);
  if (!allowed)
    throw new BlockedAddressError(`${url.href}: address ${ip} is blocked (${range ?? 'blocked'})`);
}

/** The proxy dials the target itself: resolved here first, refused if every address is blocked. */
export async function checkTargetForProxy(
  policy: AddressPolicy,
  lookup: LookupFunction | undefined,
  url: URL,
): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return; // literal: checkLiteralHost has checked it
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const base: LookupFunction = lookup ?? ((h, o, cb) => dns.lookup(h, o, cb));
  await new Promise<void>((resolve, reject) => {
    guardedLookup(policy, port, base)(host, { all: true }, (err) => (err ? reject(err) : resolve()));
  });
}
