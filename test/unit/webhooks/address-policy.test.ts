import { AddressPolicy } from '../../../src/webhooks/address-policy';

describe('AddressPolicy (SSRF guard)', () => {
  const strict = new AddressPolicy();

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['169.254.1.1', 'linkLocal'],
    ['169.254.169.254', 'cloud metadata'],
    ['168.63.129.16', 'cloud metadata'],
    ['100.100.100.200', 'cloud metadata'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.10', 'reserved'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['fe80::1', 'linkLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'cloud metadata'],
    ['::ffff:7f00:1', 'loopback'],
    ['::127.0.0.1', 'loopback'],
    ['::7f00:1', 'reserved'],
    ['::a00:1', 'reserved'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['2002:a00:1::', '6to4'],
    ['2001::1', 'teredo'],
  ])('refuses %s (%s)', (ip, reason) => {
    const v = strict.check(ip);
    expect(v.allowed).toBe(false);
    expect(v.reason).toBe(reason);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'allows public %s',
    (ip) => {
      expect(strict.check(ip).allowed).toBe(true);
    },
  );

  it('refuses things that are not IP addresses', () => {
    expect(strict.check('localhost').allowed).toBe(false);
    expect(strict.check('').allowed).toBe(false);
  });

  it('lets allow-listed private ranges through, but never cloud metadata', () => {
    const dev = new AddressPolicy('127.0.0.1/32, ::1, 10.0.0.0/8 ,169.254.0.0/16');
    expect(dev.check('127.0.0.1').allowed).toBe(true);
    expect(dev.check('::ffff:127.0.0.1').allowed).toBe(true);
    expect(dev.check('::1').allowed).toBe(true);
    expect(dev.check('10.9.8.7').allowed).toBe(true);
    expect(dev.check('127.0.0.2').allowed).toBe(false);
    expect(dev.check('169.254.1.1').allowed).toBe(true);
    expect(dev.check('169.254.169.254')).toMatchObject({ allowed: false, reason: 'cloud metadata' });
  });

  it('knows IP literals as URL parsing normalises them (decimal, hex, octal, bracketed v6)', () => {
    for (const u of [
      'https://2130706433/',
      'https://0x7f.1/',
      'https://017700000001/',
      'https://[::ffff:127.0.0.1]/',
    ]) {
      const host = new URL(u).hostname;
      expect(AddressPolicy.isIpLiteral(host)).toBe(true);
      expect(strict.check(host)).toMatchObject({ allowed: false, reason: 'loopback' });
    }
    expect(AddressPolicy.isIpLiteral('example.com')).toBe(false);
  });
});
