import { BlockList, isIP, isIPv4 } from 'node:net';

/** What an IP address reaches, as far as pushing to it is concerned. */
export type AddressClass = 'metadata' | 'unspecified' | 'link-local' | 'multicast' | 'broadcast' | 'loopback' | 'private' | 'public';

/** Addresses no allow-list can open: nothing legitimate listens there for pushes, and an attacker gains a lot. */
export const ALWAYS_REFUSED_CLASSES: ReadonlySet<AddressClass> = new Set([
  'metadata',
  'unspecified',
  'link-local',
  'multicast',
  'broadcast',
]);

/**
 * Instance metadata and platform services of cloud providers, which hand out credentials to whoever asks from
 * inside the machine: AWS (IMDS over IPv4 and IPv6, ECS task credentials), GCP, Azure, DigitalOcean and
 * OpenStack (169.254.169.254), Azure's WireServer (168.63.129.16), Alibaba Cloud (100.100.100.200) and Oracle
 * Cloud (192.0.0.192). Most are link-local and refused anyway; listing them names the danger in the error.
 */
export const METADATA_ADDRESSES: readonly string[] = [
  '169.254.169.254',
  '169.254.170.2',
  'fd00:ec2::254',
  '168.63.129.16',
  '100.100.100.200',
  '192.0.0.192',
];

/** What each class is, for error messages. */
export const ADDRESS_CLASS_DESCRIPTIONS: Readonly<Record<AddressClass, string>> = {
  metadata: 'a cloud metadata service',
  unspecified: 'an unspecified address (0.0.0.0/8, ::)',
  'link-local': 'link-local (169.254.0.0/16, fe80::/10)',
  multicast: 'multicast (224.0.0.0/4, ff00::/8)',
  broadcast: 'the broadcast address',
  loopback: 'loopback (127.0.0.0/8, ::1)',
  private: 'in a private range (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, fc00::/7, fec0::/10)',
  public: 'a public address',
};

/** Checked in this order, so the exact metadata addresses win over the ranges that hold them. */
const RANGES: ReadonlyArray<[AddressClass, string, number]> = [
  ['unspecified', '0.0.0.0', 8],
  ['unspecified', '::', 128],
  ['link-local', '169.254.0.0', 16],
  ['link-local', 'fe80::', 10],
  ['multicast', '224.0.0.0', 4],
  ['multicast', 'ff00::', 8],
  ['broadcast', '255.255.255.255', 32],
  ['loopback', '127.0.0.0', 8],
  ['loopback', '::1', 128],
  ['private', '10.0.0.0', 8],
  ['private', '172.16.0.0', 12],
  ['private', '192.168.0.0', 16],
  ['private', '100.64.0.0', 10],
  ['private', 'fc00::', 7],
  ['private', 'fec0::', 10],
];

const METADATA = blockListOf(METADATA_ADDRESSES.map((address) => [address, address.includes(':') ? 128 : 32]));
const CLASSES = (['unspecified', 'link-local', 'multicast', 'broadcast', 'loopback', 'private'] as const).map(
  (kind) => [kind, blockListOf(RANGES.filter(([k]) => k === kind).map(([, network, prefix]) => [network, prefix]))] as const,
);

/** An address as classified: its class, and the IPv4 address an IPv6 form carries (its class is that one's). */
export interface ClassifiedAddress {
  kind: AddressClass;
  /** Set when the address is an IPv6 form of an IPv4 address (mapped, compatible, translated, NAT64, 6to4). */
  ipv4?: string;
}

/**
 * Classifies an IP address (any textual form `net.isIP` accepts). An IPv6 address that carries an IPv4 address
 * (`::ffff:169.254.169.254`, `::ffff:a9fe:a9fe`, `::a9fe:a9fe`, `64:ff9b::a9fe:a9fe`, `2002:a9fe:a9fe::`) is
 * classified as that IPv4 address, since that is where the packets can end up.
 *
 * @throws TypeError for something that is not an IP address
 */
export function classifyAddress(address: string): ClassifiedAddress {
  const family = isIP(address);
  if (family === 0) throw new TypeError(`${JSON.stringify(address)} is not an IP address`);
  const ipv4 = family === 6 ? embeddedIPv4(address) : undefined;
  const ip = ipv4 ?? address;
  const type = isIPv4(ip) ? 'ipv4' : 'ipv6';
  if (METADATA.check(ip, type)) return { kind: 'metadata', ipv4 };
  const found = CLASSES.find(([, list]) => list.check(ip, type));
  return { kind: found ? found[0] : 'public', ipv4 };
}

/**
 * The IPv4 address `getaddrinfo` makes of a name written the way `inet_aton` reads it — `2852039166`,
 * `0xa9fea9fe`, `0251.0376.0251.0376`, `169.254.43518` — or undefined if it is no such spelling. `Host` refuses
 * these names; this lets the push-target policy refuse them on its own too.
 */
export function legacyIPv4(name: string): string | undefined {
  const parts = name.split('.');
  if (parts.length > 4) return undefined;
  const values = parts.map(partValue);
  if (values.some((value) => value === undefined)) return undefined;
  const last = values.pop()!;
  if (values.some((value) => value! > 0xff) || last >= 2 ** (8 * (4 - values.length))) return undefined;
  const bytes = [...(values as number[])];
  for (let i = 3 - values.length; i >= 0; i--) bytes.push(Math.floor(last / 2 ** (8 * i)) % 256);
  return bytes.join('.');
}

function partValue(part: string): number | undefined {
  if (/^0x[0-9a-f]*$/i.test(part)) return part.length === 2 ? 0 : parseInt(part.slice(2), 16);
  if (/^0[0-7]*$/.test(part)) return parseInt(part, 8);
  if (/^[1-9]\d*$/.test(part)) return Number(part);
  return undefined;
}

/** The IPv4 address inside an IPv4-mapped, -compatible, -translated, NAT64 (64:ff9b::/96) or 6to4 address. */
function embeddedIPv4(address: string): string | undefined {
  const h = hextets(address);
  const zero = (from: number, to: number) => h.slice(from, to).every((value) => value === 0);
  const ipv4 = (high: number, low: number) => [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  if (zero(0, 5) && h[5] === 0xffff) return ipv4(h[6], h[7]); // ::ffff:a.b.c.d, mapped
  if (zero(0, 4) && h[4] === 0xffff && h[5] === 0) return ipv4(h[6], h[7]); // ::ffff:0:a.b.c.d, translated
  if (zero(0, 6) && (h[6] !== 0 || h[7] > 1)) return ipv4(h[6], h[7]); // ::a.b.c.d, compatible (not :: or ::1)
  if (h[0] === 0x64 && h[1] === 0xff9b && zero(2, 6)) return ipv4(h[6], h[7]); // 64:ff9b::a.b.c.d, NAT64
  if (h[0] === 0x2002) return ipv4(h[1], h[2]); // 2002:aabb:ccdd::, 6to4
  return undefined;
}

/** The eight 16-bit groups of a valid IPv6 address (zone-less). */
function hextets(address: string): number[] {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = text.slice(0, dotted.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const groups = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const front = groups(head);
  const back = groups(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

function blockListOf(networks: ReadonlyArray<readonly [string, number]>): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of networks) list.addSubnet(network, prefix, network.includes(':') ? 'ipv6' : 'ipv4');
  return list;
}
