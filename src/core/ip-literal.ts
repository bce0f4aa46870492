/** IP literals: strict v4/v6 parsing, the WHATWG forms resolvers accept (127.1, 0x7f.0.0.1), RFC 5952 text. */

export type Bytes = Uint8Array;
export type Family = 'ipv4' | 'ipv6';

export function parseIPv4(s: string): Bytes | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i]!;
    // No leading zeros: some resolvers read them as octal.
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

export function formatV4(b: Bytes): string {
  return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
}

export /** The address as BlockList takes it: dotted-quad or v6 text without brackets or zone. */
function familyOf(ip: string): { text: string; family: Family } | undefined {
  if (parseIPv4(ip)) return { text: ip, family: 'ipv4' };
  const v6 = parseIPv6(ip);
  return v6 ? { text: formatV6(v6), family: 'ipv6' } : undefined;
}

function parseV4Part(part: string): number | undefined {
  if (/^0[xX][0-9a-fA-F]*$/.test(part)) return part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16);
  if (/^0[0-7]+$/.test(part)) return Number.parseInt(part.slice(1), 8);
  if (/^(0|[1-9]\d*)$/.test(part)) return Number(part);
  return undefined;
}

/** Canonical IP when `host` is a literal in any form a resolver accepts, like the WHATWG IPv4 parser. */
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

export function formatV6(b: Bytes): string {
  const words: string[] = [];
  for (let i = 0; i < 16; i += 2) words.push(((b[i]! << 8) | b[i + 1]!).toString(16));
  // RFC 5952: collapse the longest run of zero words.
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
