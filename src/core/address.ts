/**
 * SSRF address classification. Pure: no DNS, no sockets. The fetcher calls it twice per
 * connection: on the URL's literal host before dispatch, and on every address DNS returns.
 */
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
}

export const DEFAULT_ADDRESS_POLICY: AddressPolicy = { allowPrivateNetworks: false, allow: [] };

type Bytes = Uint8Array;
interface Range {
  readonly net: Bytes;
  readonly bits: number;
  readonly name: string;
}

function range(cidr: string, name: string): Range {
  const parsed = parseCidr(cidr);
  if (!parsed) throw new Error(`bad built-in range ${cidr}`);
  return { ...parsed, name };
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

/** Refused even with allowPrivateNetworks: reaching them from a crawler is never legitimate. */
const CLOUD_METADATA = new Set(['169.254.169.254', 'fd00:ec2::254']);

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

function parseIp(ip: string): Bytes | undefined {
  return parseIPv4(ip) ?? parseIPv6(ip);
}

function parseCidr(cidr: string): { net: Bytes; bits: number } | undefined {
  const slash = cidr.lastIndexOf('/');
  if (slash === -1) return undefined;
  const net = parseIp(cidr.slice(0, slash));
  const bitsText = cidr.slice(slash + 1);
  if (!net || !/^\d{1,3}$/.test(bitsText)) return undefined;
  const bits = Number(bitsText);
  return bits <= net.length * 8 ? { net, bits } : undefined;
}

function inRange(addr: Bytes, net: Bytes, bits: number): boolean {
  if (addr.length !== net.length) return false;
  const whole = bits >> 3;
  for (let i = 0; i < whole; i++) if (addr[i] !== net[i]) return false;
  const rest = bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((addr[whole]! ^ net[whole]!) & mask) === 0;
}

function formatV4(b: Bytes): string {
  return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
}

function classify(addr: Bytes): AddressVerdict {
  if (addr.length === 4) {
    const hit = V4_RANGES.find((r) => inRange(addr, r.net, r.bits));
    return hit ? { blocked: true, range: hit.name } : { blocked: false };
  }
  const hit = V6_RANGES.find((r) => inRange(addr, r.net, r.bits));
  if (hit) return { blocked: true, range: hit.name };
  const wrapper = V6_EMBEDDING_V4.find((r) => inRange(addr, r.net, r.bits));
  if (wrapper) {
    const inner = classify(addr.subarray(12));
    return inner.blocked ? { blocked: true, range: `${wrapper.name}/${inner.range}` } : inner;
  }
  // 6to4 (2002:V4ADDR::/48) tunnels to the embedded v4 address.
  if (addr[0] === 0x20 && addr[1] === 0x02) {
    const inner = classify(addr.subarray(2, 6));
    if (inner.blocked) return { blocked: true, range: `6to4/${inner.range}` };
  }
  return { blocked: false };
}

/** Classifies a literal IP (v4 dotted-quad or v6, brackets and zone ids tolerated). Non-IPs fail closed. */
export function isBlockedAddress(ip: string): AddressVerdict {
  const addr = parseIp(ip);
  return addr ? classify(addr) : { blocked: true, range: 'invalid' };
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

/** Unwraps ::ffff:a.b.c.d so an allow entry written as v4 also matches the mapped form. */
function canonical(addr: Bytes): Bytes {
  if (addr.length === 16 && inRange(addr, V6_EMBEDDING_V4[0]!.net, 96)) return addr.subarray(12);
  return addr;
}

interface AllowRule {
  readonly net: Bytes;
  readonly bits: number;
  readonly port?: number;
}

function parseAllowEntry(entry: string): AllowRule | undefined {
  const cidr = parseCidr(entry);
  if (cidr) return { net: canonical(cidr.net), bits: cidr.bits };
  const bracketed = /^\[([^\]]+)\]:(\d{1,5})$/.exec(entry);
  const v4port = /^([\d.]+):(\d{1,5})$/.exec(entry);
  const [ipText, portText] = bracketed
    ? [bracketed[1]!, bracketed[2]]
    : v4port
      ? [v4port[1]!, v4port[2]]
      : [entry];
  const ip = parseIp(ipText);
  if (!ip) return undefined;
  const net = canonical(ip);
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  return port === undefined ? { net, bits: net.length * 8 } : { net, bits: net.length * 8, port };
}

/** Parses allow entries once; throws InvalidArgumentError naming the first bad entry. */
export function compileAllowList(allow: readonly string[]): readonly AllowRule[] {
  return allow.map((entry) => {
    const rule = parseAllowEntry(entry);
    if (!rule) throw new InvalidArgumentError(`addressPolicy.allow: invalid entry ${JSON.stringify(entry)}`);
    return rule;
  });
}

const compiled = new WeakMap<readonly string[], readonly AllowRule[]>();

export interface AddressDecision {
  readonly allowed: boolean;
  readonly range?: string;
}

/** Decides whether a connection to ip:port may be opened under the policy. */
export function checkAddress(policy: AddressPolicy, ip: string, port: number): AddressDecision {
  const raw = parseIp(ip);
  if (!raw) return { allowed: false, range: 'invalid' };
  const addr = canonical(raw);
  let rules = compiled.get(policy.allow);
  if (!rules) {
    rules = compileAllowList(policy.allow);
    compiled.set(policy.allow, rules);
  }
  if (rules.some((r) => (r.port === undefined || r.port === port) && inRange(addr, r.net, r.bits))) {
    return { allowed: true };
  }
  const verdict = classify(raw);
  const text = addr.length === 4 ? formatV4(addr) : formatV6(addr);
  if (CLOUD_METADATA.has(text)) return { allowed: false, range: 'cloud-metadata' };
  if (!verdict.blocked || policy.allowPrivateNetworks) return { allowed: true };
  return verdict.range === undefined ? { allowed: false } : { allowed: false, range: verdict.range };
}
