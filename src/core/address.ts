/**
 * SSRF address classification. Pure: no DNS, no sockets. The fetcher calls it twice per
 * connection: on the URL's literal host before dispatch, and on every address DNS returns.
 */
import { BlockList, isIP } from 'node:net';
import { InvalidArgumentError } from './errors.js';

export interface AddressVerdict {
  readonly blocked: boolean;
  /** Name of the matched special-purpose range, e.g. 'loopback', 'ipv4-mapped/private'. */
  readonly range?: string;
}

export interface AddressPolicy {
  /** When true, every range below is reachable (dev, intranet crawls) except cloud metadata. */
  readonly allowPrivateNetworks: boolean;
  /** Always reachable: 'IP', 'IP:PORT', '[v6]:PORT' or CIDR 'IP/len'. */
  readonly allow: readonly string[];
  /**
   * Never reachable, whatever the rest says: 'IP|PORT' keys of crawld's own HTTP listener (its
   * admin API), so that neither a crawled link nor a rendered page's script can call it, even
   * with allowPrivateNetworks or an allow list that covers its address.
   */
  readonly deny?: ReadonlySet<string>;
}

export const DEFAULT_ADDRESS_POLICY: AddressPolicy = { allowPrivateNetworks: false, allow: [] };

type Bytes = Uint8Array;
type Family = 'ipv4' | 'ipv6';

/**
 * A named special-purpose range. Matching is node:net's BlockList, which also matches an
 * IPv4 rule against the IPv4-mapped form (::ffff:a.b.c.d) of its addresses.
 */
interface Range {
  readonly list: BlockList;
  readonly name: string;
}

function range(cidr: string, name: string): Range {
  const list = new BlockList();
  const [net, bits] = cidr.split('/') as [string, string];
  list.addSubnet(net, Number(bits), isIP(net) === 6 ? 'ipv6' : 'ipv4');
  return { list, name };
}

// Order matters: the first match names the verdict (broadcast before the reserved 240/4 block).
const V4_RANGES: readonly Range[] = [
  range('0.0.0.0/8', 'unspecified'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'cgnat'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'ietf-protocol'),
  range('192.0.2.0/24', 'documentation'),
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'benchmarking'),
  range('198.51.100.0/24', 'documentation'),
  range('203.0.113.0/24', 'documentation'),
  range('224.0.0.0/4', 'multicast'),
  range('255.255.255.255/32', 'broadcast'),
  range('240.0.0.0/4', 'reserved'),
];

const V6_RANGES: readonly Range[] = [
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'site-local'),
  range('fc00::/7', 'unique-local'),
  range('ff00::/8', 'multicast'),
  range('2001:db8::/32', 'documentation'),
  // RFC 8215 local-use NAT64: the embedded v4 position is operator-defined, so refuse outright.
  range('64:ff9b:1::/48', 'nat64-local'),
];

/** Prefixes whose low 32 bits carry an IPv4 address that is what really gets reached. */
const V6_EMBEDDING_V4: readonly Range[] = [
  range('::ffff:0:0/96', 'ipv4-mapped'),
  range('::ffff:0:0:0/96', 'ipv4-translated'),
  range('64:ff9b::/96', 'nat64'),
  range('::/96', 'ipv4-compatible'),
];

function firstMatch(ranges: readonly Range[], ip: string, family: Family): Range | undefined {
  return ranges.find((r) => r.list.check(ip, family));
}

/** Refused even with allowPrivateNetworks: reaching them from a crawler is never legitimate. */
const CLOUD_METADATA = new BlockList();
CLOUD_METADATA.addAddress('169.254.169.254', 'ipv4');
CLOUD_METADATA.addAddress('fd00:ec2::254', 'ipv6');

function isCloudMetadata(text: string, family: Family): boolean {
  return CLOUD_METADATA.check(text, family);
}

export function parseIPv4(s: string): Bytes | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i]!;
    // Strict dotted-quad only: no leading zeros, which some resolvers read as octal.
    if (!/^(0|[1-9]\d{0,2})$/.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    out[i] = n;
  }
  return out;
}

export function parseIPv6(input: string): Bytes | undefined {
  let s = input;
  const zone = s.indexOf('%');
  if (zone !== -1) s = s.slice(0, zone);
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  if (!/^[0-9a-fA-F:.]+$/.test(s)) return undefined;
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const words = (part: string): number[] | undefined => {
    if (part === '') return [];
    const out: number[] = [];
    const groups = part.split(':');
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i]!;
      if (i === groups.length - 1 && g.includes('.')) {
        const v4 = parseIPv4(g);
        if (!v4) return undefined;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
        out.push(Number.parseInt(g, 16));
      }
    }
    return out;
  };
  const head = words(halves[0]!);
  const tail = halves.length === 2 ? words(halves[1]!) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const all = [...head, ...new Array<number>(missing).fill(0), ...tail];
  const out = new Uint8Array(16);
  all.forEach((w, i) => {
    out[i * 2] = w >> 8;
    out[i * 2 + 1] = w & 0xff;
  });
  return out;
}

function formatV4(b: Bytes): string {
  return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
}

/** The address as BlockList takes it: dotted-quad or v6 text without brackets or zone. */
function familyOf(ip: string): { text: string; family: Family } | undefined {
  if (parseIPv4(ip)) return { text: ip, family: 'ipv4' };
  const v6 = parseIPv6(ip);
  return v6 ? { text: formatV6(v6), family: 'ipv6' } : undefined;
}

function classify(text: string, family: Family): AddressVerdict {
  if (family === 'ipv4') {
    const hit = firstMatch(V4_RANGES, text, 'ipv4');
    return hit ? { blocked: true, range: hit.name } : { blocked: false };
  }
  const hit = firstMatch(V6_RANGES, text, 'ipv6');
  if (hit) return { blocked: true, range: hit.name };
  const addr = parseIPv6(text)!;
  const wrapper = firstMatch(V6_EMBEDDING_V4, text, 'ipv6');
  if (wrapper) {
    const inner = classify(formatV4(addr.subarray(12)), 'ipv4');
    return inner.blocked ? { blocked: true, range: `${wrapper.name}/${inner.range}` } : inner;
  }
  // 6to4 (2002:V4ADDR::/48) tunnels to the embedded v4 address.
  if (addr[0] === 0x20 && addr[1] === 0x02) {
    const inner = classify(formatV4(addr.subarray(2, 6)), 'ipv4');
    if (inner.blocked) return { blocked: true, range: `6to4/${inner.range}` };
  }
  return { blocked: false };
}

/** Classifies a literal IP (v4 dotted-quad or v6, brackets and zone ids tolerated). Non-IPs fail closed. */
export function isBlockedAddress(ip: string): AddressVerdict {
  const addr = familyOf(ip);
  return addr ? classify(addr.text, addr.family) : { blocked: true, range: 'invalid' };
}

/** Parses one WHATWG IPv4 number part: decimal, 0-prefixed octal or 0x-prefixed hex. */
function parseV4Part(part: string): number | undefined {
  if (/^0[xX][0-9a-fA-F]*$/.test(part)) return part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16);
  if (/^0[0-7]+$/.test(part)) return Number.parseInt(part.slice(1), 8);
  if (/^(0|[1-9]\d*)$/.test(part)) return Number(part);
  return undefined;
}

/**
 * Returns the canonical IP when `host` is an IP literal in any form a resolver might accept
 * (2130706433, 0177.0.0.1, 0x7f.0.0.1, 127.1, [::1]), otherwise undefined. Mirrors the WHATWG
 * IPv4 parser so non-URL inputs (redirect targets, config) get the same treatment as URLs.
 */
export function parseHostLiteral(host: string): string | undefined {
  const v6 = host.includes(':') ? parseIPv6(host) : undefined;
  if (v6) return formatV6(v6);
  let parts = host.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts = parts.slice(0, -1);
  if (parts.length === 0 || parts.length > 4) return undefined;
  const nums: number[] = [];
  for (const p of parts) {
    const n = parseV4Part(p);
    if (n === undefined) return undefined;
    nums.push(n);
  }
  const last = nums.pop()!;
  if (nums.some((n) => n > 255) || last >= 256 ** (4 - nums.length)) return undefined;
  let value = last;
  nums.forEach((n, i) => {
    value += n * 256 ** (3 - i);
  });
  return formatV4(new Uint8Array([value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff]));
}

function formatV6(b: Bytes): string {
  const words: string[] = [];
  for (let i = 0; i < 16; i += 2) words.push(((b[i]! << 8) | b[i + 1]!).toString(16));
  // Collapse the longest run of zero words, as RFC 5952 asks.
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && words[j] === '0') j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  if (best === -1) return words.join(':');
  return `${words.slice(0, best).join(':')}::${words.slice(best + bestLen).join(':')}`;
}

/** Parsed allow entries: one list of addresses and subnets for any port, one per port. */
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

/** Adds 'IP', 'IP:PORT', '[v6]:PORT' or 'IP/len' to the allow list; false when malformed. */
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

/** Parses allow entries once; throws InvalidArgumentError naming the first bad entry. */
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

/** Decides whether a connection to ip:port may be opened under the policy. */
/**
 * The `deny` keys of a listener on `port` at `ips` (each in every spelling a request can
 * reach it by: canonical text, and an IPv4 address also as IPv4-mapped IPv6).
 */
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
  // Asked for every request to a literal-IP host and every connection: decisions are cached per
  // allow list (a BlockList check costs microseconds; the set of addresses a crawl meets is small).
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

/** The ports of each deny set: an address is spelled out (parsed) only on a denied port. */
const denyPorts = new WeakMap<ReadonlySet<string>, ReadonlySet<number>>();

function isDenied(deny: ReadonlySet<string>, ip: string, port: number): boolean {
  let ports = denyPorts.get(deny);
  if (!ports) {
    ports = new Set([...deny].map((k) => Number(k.slice(k.lastIndexOf('|') + 1))));
    denyPorts.set(deny, ports);
  }
  if (!ports.has(port)) return false;
  // Any spelling of the address (IPv4-mapped, uncompressed IPv6) is the listener's.
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
