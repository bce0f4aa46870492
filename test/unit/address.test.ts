import { describe, expect, it } from 'vitest';
import {
  type AddressPolicy,
  checkAddress,
  compileAllowList,
  isBlockedAddress,
  listenerDenyKeys,
  parseHostLiteral,
} from '../../src/core/address.js';
import { InvalidArgumentError } from '../../src/core/errors.js';

describe('isBlockedAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.0.1', 'link-local'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['::ffff:127.0.0.1', 'ipv4-mapped/loopback'],
    ['::ffff:7f00:1', 'ipv4-mapped/loopback'],
    ['::ffff:10.1.2.3', 'ipv4-mapped/private'],
    ['::ffff:a9fe:a9fe', 'ipv4-mapped/link-local'],
    ['64:ff9b::10.0.0.1', 'nat64/private'],
    ['64:ff9b::7f00:1', 'nat64/loopback'],
    ['64:ff9b::192.168.0.1', 'nat64/private'],
    ['64:ff9b:1::1', 'nat64-local'],
    ['2002:7f00:1::1', '6to4/loopback'],
    ['[::1]', 'loopback'],
    ['192.0.2.1', 'documentation'],
    ['2001:db8::1', 'documentation'],
  ])('%s is blocked as %s', (ip, range) => {
    expect(isBlockedAddress(ip)).toEqual({ blocked: true, range });
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.15.255.255',
    '172.32.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '169.253.255.255',
    '192.169.0.1',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
  ])('%s is public', (ip) => {
    expect(isBlockedAddress(ip)).toEqual({ blocked: false });
  });

  it.each(['', 'localhost', '127.1', '0177.0.0.1', '256.0.0.1', '1:2:3:4:5:6:7:8:9', '1::2::3', 'fe80::zz'])(
    'fails closed on non-canonical input %j',
    (ip) => {
      expect(isBlockedAddress(ip)).toEqual({ blocked: true, range: 'invalid' });
    },
  );
});

describe('parseHostLiteral', () => {
  it.each([
    ['2130706433', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0x7f.0.0.1', '127.0.0.1'],
    ['0x7F000001', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['10.0.0.1', '10.0.0.1'],
    ['0', '0.0.0.0'],
    ['127.0.0.1.', '127.0.0.1'],
    ['017700000001', '127.0.0.1'],
    ['[::1]', '::1'],
    ['::ffff:7f00:1', '::ffff:7f00:1'],
    ['[0:0:0:0:0:ffff:127.0.0.1]', '::ffff:7f00:1'],
  ])('%s is the literal %s', (host, ip) => {
    expect(parseHostLiteral(host)).toBe(ip);
  });

  it.each([
    'example.com',
    'localhost',
    '127.0.0.1.example',
    '4294967296',
    '256.1.1.1',
    '1.2.3.4.5',
    '08.0.0.1',
    '',
  ])('%j is not an IP literal', (host) => {
    expect(parseHostLiteral(host)).toBeUndefined();
  });

  it.each([
    'http://2130706433/',
    'http://0177.0.0.1/',
    'http://0x7f.0.0.1/',
    'http://127.1/',
    'http://[::ffff:127.0.0.1]/',
  ])('WHATWG URL hostname of %s is a blocked literal', (url) => {
    const ip = parseHostLiteral(new URL(url).hostname);
    expect(ip).toBeDefined();
    expect(isBlockedAddress(ip!).blocked).toBe(true);
  });

  it('agrees with WHATWG URL normalisation for IPv4 forms', () => {
    for (const host of ['2130706433', '0177.0.0.1', '0x7f.0.0.1', '127.1', '0x7f.1', '10.0x10.1']) {
      expect(parseHostLiteral(host)).toBe(new URL(`http://${host}/`).hostname);
    }
  });
});

describe('checkAddress', () => {
  const strict: AddressPolicy = { allowPrivateNetworks: false, allow: [] };

  it("refuses crawld's own listener whatever allows it, in every spelling of its address", () => {
    const deny = listenerDenyKeys(['127.0.0.1', '::1'], 9090);
    const open: AddressPolicy = { allowPrivateNetworks: true, allow: ['127.0.0.1'], deny };
    for (const ip of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '0:0:0:0:0:0:0:1']) {
      expect(checkAddress(open, ip, 9090), ip).toEqual({ allowed: false, range: 'crawld-listener' });
    }
    // Another port of the same address, and the same port elsewhere, are the policy's to decide.
    expect(checkAddress(open, '127.0.0.1', 9091)).toEqual({ allowed: true });
    expect(checkAddress(open, '10.0.0.1', 9090)).toEqual({ allowed: true });
    expect(checkAddress({ ...open, deny: new Set() }, '127.0.0.1', 9090)).toEqual({ allowed: true });
  });

  it('refuses private ranges and allows public ones by default', () => {
    expect(checkAddress(strict, '127.0.0.1', 80)).toEqual({ allowed: false, range: 'loopback' });
    expect(checkAddress(strict, '::ffff:192.168.0.1', 80)).toEqual({
      allowed: false,
      range: 'ipv4-mapped/private',
    });
    expect(checkAddress(strict, '8.8.8.8', 443)).toEqual({ allowed: true });
    expect(checkAddress(strict, 'not-an-ip', 80)).toEqual({ allowed: false, range: 'invalid' });
  });

  it('allowPrivateNetworks opens private ranges but never cloud metadata', () => {
    const open: AddressPolicy = { allowPrivateNetworks: true, allow: [] };
    expect(checkAddress(open, '127.0.0.1', 80).allowed).toBe(true);
    expect(checkAddress(open, '10.1.1.1', 80).allowed).toBe(true);
    expect(checkAddress(open, '169.254.169.254', 80)).toEqual({ allowed: false, range: 'cloud-metadata' });
    expect(checkAddress(open, '::ffff:169.254.169.254', 80)).toEqual({
      allowed: false,
      range: 'cloud-metadata',
    });
    expect(checkAddress(open, 'fd00:ec2::254', 80)).toEqual({ allowed: false, range: 'cloud-metadata' });
  });

  it('allow entries: IP, IP:PORT, [v6]:PORT and CIDR', () => {
    const policy: AddressPolicy = {
      allowPrivateNetworks: false,
      allow: ['10.0.0.5', '127.0.0.1:8080', '[::1]:9090', '192.168.0.0/16', 'fd00::/8', '169.254.169.254'],
    };
    expect(checkAddress(policy, '10.0.0.5', 1234).allowed).toBe(true);
    expect(checkAddress(policy, '10.0.0.6', 1234).allowed).toBe(false);
    expect(checkAddress(policy, '127.0.0.1', 8080).allowed).toBe(true);
    expect(checkAddress(policy, '127.0.0.1', 8081).allowed).toBe(false);
    expect(checkAddress(policy, '::ffff:127.0.0.1', 8080).allowed).toBe(true);
    expect(checkAddress(policy, '::1', 9090).allowed).toBe(true);
    expect(checkAddress(policy, '::1', 80).allowed).toBe(false);
    expect(checkAddress(policy, '192.168.44.3', 1).allowed).toBe(true);
    expect(checkAddress(policy, 'fd12::1', 1).allowed).toBe(true);
    expect(checkAddress(policy, 'fc00::1', 1).allowed).toBe(false);
    expect(checkAddress(policy, '169.254.169.254', 80).allowed).toBe(true);
  });

  it('rejects malformed allow entries by name', () => {
    for (const bad of ['localhost', '10.0.0.0/33', '1.2.3.4:0', '1.2.3.4:70000', '::1:80x', '']) {
      expect(() => compileAllowList([bad])).toThrow(InvalidArgumentError);
      expect(() => compileAllowList([bad])).toThrow(JSON.stringify(bad));
    }
  });
});

describe('every refused range, in the forms a URL or a resolver may spell it', () => {
  const strict: AddressPolicy = { allowPrivateNetworks: false, allow: [] };
  /** URL host -> parseHostLiteral -> checkAddress, as the fetcher does for literal hosts. */
  const verdict = (host: string) => {
    const ip = parseHostLiteral(host);
    if (ip === undefined) throw new Error(`${host} is not a literal`);
    return checkAddress(strict, ip, 80);
  };

  it.each([
    // 10/8
    ['167772161', 'private'],
    ['012.0.0.1', 'private'],
    ['0xa.0.0.1', 'private'],
    ['10.1', 'private'],
    // 172.16/12, both ends
    ['2886729729', 'private'],
    ['0254.020.0.1', 'private'],
    ['0xac1fffff', 'private'],
    // 192.168/16
    ['3232235777', 'private'],
    ['0300.0250.1.1', 'private'],
    ['192.168.257', 'private'],
    // 169.254/16 (metadata is its own verdict even when private networks are refused)
    ['0xa9fe0001', 'link-local'],
    ['0251.0376.0.1', 'link-local'],
    // 100.64/10
    ['1681915905', 'cgnat'],
    ['0x64.0x40.0.1', 'cgnat'],
    // loopback
    ['2130706433', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    // IPv6: fc00::/7, fe80::/10, mapped, in URL bracket form
    ['[fc00::1]', 'unique-local'],
    ['[fdff:ffff::1]', 'unique-local'],
    ['[fe80::1]', 'link-local'],
    ['[febf::1]', 'link-local'],
    ['[::ffff:127.0.0.1]', 'ipv4-mapped/loopback'],
    ['[::ffff:10.0.0.1]', 'ipv4-mapped/private'],
    ['[::ffff:172.16.0.1]', 'ipv4-mapped/private'],
    ['[::ffff:c0a8:101]', 'ipv4-mapped/private'],
    ['[::ffff:100.64.0.1]', 'ipv4-mapped/cgnat'],
    ['[::ffff:169.254.0.1]', 'ipv4-mapped/link-local'],
  ])('%s is refused as %s', (host, range) => {
    expect(verdict(host)).toEqual({ allowed: false, range });
    // The same host through WHATWG URL parsing, as a seed or a redirect target is parsed.
    const viaUrl = parseHostLiteral(new URL(`http://${host}/`).hostname);
    expect(viaUrl).toBeDefined();
    expect(checkAddress(strict, viaUrl!, 80).allowed).toBe(false);
  });

  it('refuses cloud metadata in every form, even with private networks allowed', () => {
    const open: AddressPolicy = { allowPrivateNetworks: true, allow: [] };
    for (const host of [
      '169.254.169.254',
      '2852039166',
      '0xa9fea9fe',
      '0251.0376.0251.0376',
      '[::ffff:a9fe:a9fe]',
    ]) {
      expect(checkAddress(open, parseHostLiteral(host)!, 80), host).toEqual({
        allowed: false,
        range: 'cloud-metadata',
      });
    }
  });

  it.each(['172.15.255.255', '172.32.0.0', '100.63.255.255', '100.128.0.0', '[fbff::1]', '[fec0::1]'])(
    'range edges: %s is not in the neighbouring private range',
    (host) => {
      const d = verdict(host);
      expect(
        d.range === undefined || !['private', 'cgnat', 'unique-local', 'link-local'].includes(d.range),
      ).toBe(true);
    },
  );
});
