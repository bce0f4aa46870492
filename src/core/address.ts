/** SSRF address classification, pure: checked on a URL's literal host and on every address DNS returns. */
import { BlockList } from 'node:net';
import { InvalidArgumentError } from './errors.js';
import { familyOf, parseHostLiteral } from './ip-literal.js';
import { classify, isCloudMetadata } from './special-ranges.js';

export { parseHostLiteral, parseIPv4, parseIPv6 } from './ip-literal.js';
export { type AddressVerdict, isBlockedAddress } from './special-ranges.js';

export interface AddressPolicy {
  /** Every range below becomes reachable except cloud metadata. */
  readonly allowPrivateNetworks: boolean;
  /** 'IP', 'IP:PORT', '[v6]:PORT' or CIDR 'IP/len'. */
  readonly allow: readonly string[];
  /** 'IP|PORT' keys of crawld's own listener: never reachable, so no link or page script can call its admin API. */
  readonly deny?: ReadonlySet<string>;
}

export const DEFAULT_ADDRESS_POLICY: AddressPolicy = { allowPrivateNetworks: false, allow: [] };

interface AllowList {
  readonly any: BlockList;
  readonly byPort: Map<number, BlockList>;
}

function addEntry(list: BlockList, ipText: string, bits?: number): boolean {
  const addr = familyOf(ipText);
  if (!addr) return false;
  const max = addr.family === 'ipv4' ? 32 : 128;
  if (bits === undefined) list.addAddress(addr.text, addr.family);
  else if (bits <= max) list.addSubnet(addr.text, bits, addr.family);
  else return false;
  return true;
}

function parseAllowEntry(entry: string, allow: AllowList): boolean {
  const cidr = /^([^/]+)\/(\d{1,3})$/.exec(entry);
  if (cidr) return addEntry(allow.any, cidr[1]!, Number(cidr[2]));
  const bracketed = /^\[([^\]]+)\]:(\d{1,5})$/.exec(entry);
  const v4port = /^([\d.]+):(\d{1,5})$/.exec(entry);
  const [ipText, portText] = bracketed
    ? [bracketed[1]!, bracketed[2]]
    : v4port
      ? [v4port[1]!, v4port[2]]
      : [entry];
  if (portText === undefined) return addEntry(allow.any, ipText);
  const port = Number(portText);
  if (port < 1 || port > 65535) return false;
  const list = allow.byPort.get(port) ?? new BlockList();
  allow.byPort.set(port, list);
  return addEntry(list, ipText);
}

/** @throws InvalidArgumentError naming the first bad entry. */
export function compileAllowList(allow: readonly string[]): AllowList {
  const out: AllowList = { any: new BlockList(), byPort: new Map() };
  for (const entry of allow) {
    if (!parseAllowEntry(entry, out))
      throw new InvalidArgumentError(`addressPolicy.allow: invalid entry ${JSON.stringify(entry)}`);
  }
  return out;
}

const compiled = new WeakMap<readonly string[], AllowList>();

export interface AddressDecision {
  readonly allowed: boolean;
  readonly range?: string;
}

/** The `deny` keys of a listener: every spelling a request can reach it by (IPv4 also as IPv4-mapped IPv6). */
export function listenerDenyKeys(ips: readonly string[], port: number): Set<string> {
  const keys = new Set<string>();
  for (const ip of ips) {
    const canonical = parseHostLiteral(ip);
    if (canonical === undefined) continue;
    keys.add(`${canonical}|${port}`);
    if (!canonical.includes(':')) {
      const mapped = parseHostLiteral(`::ffff:${canonical}`);
      if (mapped !== undefined) keys.add(`${mapped}|${port}`);
    }
  }
  return keys;
}

export function checkAddress(policy: AddressPolicy, ip: string, port: number): AddressDecision {
  if (policy.deny !== undefined && policy.deny.size > 0 && isDenied(policy.deny, ip, port))
    return { allowed: false, range: 'crawld-listener' };
  // Cached per allow list: called for every connection, and a crawl meets few addresses.
  let cache = decisions.get(policy.allow);
  if (!cache) {
    cache = new Map();
    decisions.set(policy.allow, cache);
  }
  const key = `${policy.allowPrivateNetworks ? 1 : 0}|${port}|${ip}`;
  let decision = cache.get(key);
  if (!decision) {
    decision = decide(policy, ip, port);
    if (cache.size >= MAX_CACHED_DECISIONS) cache.clear();
    cache.set(key, decision);
  }
  return decision;
}

const decisions = new WeakMap<readonly string[], Map<string, AddressDecision>>();

/** An address is parsed only on a denied port. */
const denyPorts = new WeakMap<ReadonlySet<string>, ReadonlySet<number>>();

function isDenied(deny: ReadonlySet<string>, ip: string, port: number): boolean {
  let ports = denyPorts.get(deny);
  if (!ports) {
    ports = new Set([...deny].map((k) => Number(k.slice(k.lastIndexOf('|') + 1))));
    denyPorts.set(deny, ports);
  }
  if (!ports.has(port)) return false;
  return (
    deny.has(`${ip}|${port}`) || deny.has(`${parseHostLiteral(ip.replace(/^\[|\]$/g, '')) ?? ip}|${port}`)
  );
}
const MAX_CACHED_DECISIONS = 10_000;

function decide(policy: AddressPolicy, ip: string, port: number): AddressDecision {
  const addr = familyOf(ip);
  if (!addr) return { allowed: false, range: 'invalid' };
  let allow = compiled.get(policy.allow);
  if (!allow) {
    allow = compileAllowList(policy.allow);
    compiled.set(policy.allow, allow);
  }
  if (allow.any.check(addr.text, addr.family) || allow.byPort.get(port)?.check(addr.text, addr.family)) {
    return { allowed: true };
  }
  const verdict = classify(addr.text, addr.family);
  if (isCloudMetadata(addr.text, addr.family)) return { allowed: false, range: 'cloud-metadata' };
  if (!verdict.blocked || policy.allowPrivateNetworks) return { allowed: true };
  return verdict.range === undefined ? { allowed: false } : { allowed: false, range: verdict.range };
}
