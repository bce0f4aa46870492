/** Special-purpose ranges a crawler must not reach, also through v6 forms embedding v4, and cloud metadata. */
import { BlockList, isIP } from 'node:net';
import { type Family, familyOf, formatV4, parseIPv6 } from './ip-literal.js';

export interface AddressVerdict {
  readonly blocked: boolean;
  readonly range?: string;
}

/** BlockList matches an IPv4 rule against IPv4-mapped addresses too. */
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

// The first match names the verdict (broadcast before 240/4).
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
  // RFC 8215 local-use NAT64: the embedded v4 position is operator-defined, so refuse.
  range('64:ff9b:1::/48', 'nat64-local'),
];

const V6_EMBEDDING_V4: readonly Range[] = [
  range('::ffff:0:0/96', 'ipv4-mapped'),
  range('::ffff:0:0:0/96', 'ipv4-translated'),
  range('64:ff9b::/96', 'nat64'),
  range('::/96', 'ipv4-compatible'),
];

function firstMatch(ranges: readonly Range[], ip: string, family: Family): Range | undefined {
  return ranges.find((r) => r.list.check(ip, family));
}

/** Refused even with allowPrivateNetworks. */
const CLOUD_METADATA = new BlockList();
CLOUD_METADATA.addAddress('169.254.169.254', 'ipv4');
CLOUD_METADATA.addAddress('fd00:ec2::254', 'ipv6');

export function isCloudMetadata(text: string, family: Family): boolean {
  return CLOUD_METADATA.check(text, family);
}

export function classify(text: string, family: Family): AddressVerdict {
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
  if (addr[0] === 0x20 && addr[1] === 0x02) {
    const inner = classify(formatV4(addr.subarray(2, 6)), 'ipv4');
    if (inner.blocked) return { blocked: true, range: `6to4/${inner.range}` };
  }
  return { blocked: false };
}

/** Non-IPs fail closed. */
export function isBlockedAddress(ip: string): AddressVerdict {
  const addr = familyOf(ip);
  return addr ? classify(addr.text, addr.family) : { blocked: true, range: 'invalid' };
}
