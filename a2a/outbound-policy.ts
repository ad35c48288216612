/**
 * Where the planner may open connections (SSRF defence): agent URLs, agent cards' interfaces and
 * the operator's alert webhook. One policy, checked twice:
 *
 *  - at the edge, when a plan, a request or the configuration names a URL (`checkUrl`): no DNS, so
 *    IP literals and names are judged as written;
 *  - at connect time, inside the undici connector (`connector`): an IP literal is judged before the
 *    socket opens and a name is judged on every address DNS gives, so a name that resolves to a
 *    refused address (DNS rebinding, a card pointing elsewhere) is refused too.
 *
 * Rules. Link-local (169.254.0.0/16, fe80::/10), "this host" (0.0.0.0/8, ::) and cloud metadata
 * addresses and names are refused always, and so is every IPv6 form that embeds such an IPv4
 * address (IPv4-mapped and SIIT ::ffff:0:a.b.c.d, IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::/96 and
 * 64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32): a translator on the way would deliver it there.
 * PLANNER_AGENT_ALLOW, when set, is the whole list of what else is allowed: host names (`agents.example.com`), suffixes (`*.example.com`, which also admits the bare name), IP addresses
 * and CIDRs (`10.0.0.0/8`, `fd00::/8`). Unset, everything else (loopback included) is allowed.
 * Redirects are never followed (undici's dispatcher does not, and nothing here adds it).
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { AsyncResource } from 'node:async_hooks';
import { Agent, buildConnector } from 'undici';
import { displayUrl } from './call-context';

export const AGENT_ALLOW_ENV = 'PLANNER_AGENT_ALLOW';

// AWS (IMDS, ECS task metadata, IMDS over IPv6), Alibaba, and Azure's wire server (which hands out
// the VM's extension settings and certificates).
const METADATA_ADDRESSES = new BlockList();
for (const a of ['169.254.169.254', '169.254.170.2', '100.100.100.200', '168.63.129.16']) METADATA_ADDRESSES.addAddress(a, 'ipv4');
METADATA_ADDRESSES.addAddress('fd00:ec2::254', 'ipv6');
const METADATA_NAMES = ['metadata.google.internal', 'metadata.goog', 'metadata'];

const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6');

/** 0.0.0.0/8 ("this host on this network": a connect to 0.0.0.0 reaches the planner itself) and ::. */
const THIS_HOST = new BlockList();
THIS_HOST.addSubnet('0.0.0.0', 8, 'ipv4');
THIS_HOST.addAddress('::', 'ipv6');

/** A connection the policy does not allow; errors/transport.ts turns it into AddressRefusedError. */
export class OutboundRefusal extends Error {
  override readonly name = 'OutboundRefusal';
  readonly code = 'ERR_OUTBOUND_REFUSED';
  constructor(
    /** What was refused: a URL (edge) or `host` / `host (address)` (connect time). */
    readonly target: string,
    /** The rule that refused it. */
    readonly rule: string,
  ) {
    super(`${target} is refused: ${rule}`);
  }
}

/** The policy's refusal, wherever undici or net put it (the error itself, a cause, an AggregateError). */
export function refusalIn(err: unknown, depth = 0): OutboundRefusal | undefined {
  if (err instanceof OutboundRefusal) return err;
  if (err === null || typeof err !== 'object' || depth > 4) return undefined;
  const errors = (err as { errors?: unknown }).errors;
  if (Array.isArray(errors)) {
    for (const e of errors) {
      const r = refusalIn(e, depth + 1);
      if (r) return r;
    }
  }
  const cause = (err as { cause?: unknown }).cause;
  return cause !== undefined && cause !== err ? refusalIn(cause, depth + 1) : undefined;
}

/**
 * The async context sockets are opened in: the one this module was loaded in, at start-up. A pooled
 * socket outlives the request that opened it (a held stream may reuse it for days), and an async
 * context keeps alive all it carries: in the worker, the activity that happened to connect first.
 */
const SOCKETS = new AsyncResource('a2a-planner.socket');

/** The allow-list is malformed; the message names the entry. */
export class OutboundPolicyConfigError extends Error {
  override readonly name = 'OutboundPolicyConfigError';
}

type Resolver = (hostname: string, options: LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

export interface OutboundPolicyOptions {
  /** Allow-list entries; undefined: no list (everything not refused by default is allowed). */
  allow?: readonly string[] | undefined;
  /** Where the list came from, for messages. */
  source?: string;
  /** DNS resolution at connect time; dns.lookup unless a test gives its own table. */
  resolve?: Resolver;
}

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

export class OutboundPolicy {
  private readonly names = new Set<string>();
  private readonly suffixes: string[] = [];
  private readonly cidrs = new BlockList();
  private readonly hasList: boolean;
  private readonly hasAddresses: boolean;
  private readonly source: string;
  private readonly resolve: Resolver;

  constructor(o: OutboundPolicyOptions = {}) {
    this.source = o.source ?? AGENT_ALLOW_ENV;
    this.resolve = o.resolve ?? ((h, opts, cb) => dnsLookup(h, opts, cb));
    this.hasList = o.allow !== undefined;
    let addresses = false;
    for (const raw of o.allow ?? []) {
      const entry = raw.trim().toLowerCase();
      if (entry === '') continue;
      const slash = entry.indexOf('/');
      const ip = unbracket(slash === -1 ? entry : entry.slice(0, slash));
      const family = isIP(ip);
      if (family !== 0) {
        const max = family === 4 ? 32 : 128;
        const prefix = slash === -1 ? max : Number(entry.slice(slash + 1));
        if (!Number.isInteger(prefix) || prefix < 0 || prefix > max || (slash !== -1 && !/^\d+$/.test(entry.slice(slash + 1)))) {
          throw new OutboundPolicyConfigError(`${this.source}: entry "${raw.trim()}": the prefix length must be 0 to ${max}`);
        }
        this.cidrs.addSubnet(ip, prefix, family === 4 ? 'ipv4' : 'ipv6');
        addresses = true;
      } else if (entry.startsWith('*.') && HOSTNAME.test(entry.slice(2))) {
        this.suffixes.push(entry.slice(2));
      } else if (HOSTNAME.test(entry.replace(/\.$/, ''))) {
        this.names.add(entry.replace(/\.$/, ''));
      } else {
        throw new OutboundPolicyConfigError(
          `${this.source}: entry "${raw.trim()}" is not a host name, *.suffix, IP address or CIDR (e.g. agents.example.com, *.example.com, 10.0.0.0/8)`,
        );
      }
    }
    this.hasAddresses = addresses;
  }

  /** The policy of PLANNER_AGENT_ALLOW (comma- or space-separated); unset or empty: no list. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): OutboundPolicy {
    const raw = env[AGENT_ALLOW_ENV];
    return new OutboundPolicy({ allow: raw === undefined || raw.trim() === '' ? undefined : raw.split(/[\s,]+/) });
  }

  /** Why `url` may not be called, judged as written (no DNS); undefined when it may. */
  checkUrl(url: string): string | undefined {
    let host: string;
    try {
      host = new URL(url).hostname;
    } catch {
      return 'not a URL';
    }
    return this.checkHost(host);
  }

  /** Throws OutboundRefusal naming the URL and the rule. */
  assertUrl(url: string): void {
    const why = this.checkUrl(url);
    if (why !== undefined) throw new OutboundRefusal(displayUrl(url), why);
  }

  /** The host part of a URL, before any DNS: IP literals fully, names by the name rules. */
  checkHost(hostname: string): string | undefined {
    const host = normalHost(hostname);
    if (isIP(host) !== 0) return this.checkAddress(host, host);
    if (METADATA_NAMES.includes(host)) return `${host} is a cloud metadata service, refused always`;
    if (this.hasList && !this.nameListed(host) && !this.hasAddresses) return `host ${host} is not in ${this.source}`;
    return undefined;
  }

  /** One address `hostname` resolved to (or the literal itself). */
  checkAddress(hostname: string, address: string): string | undefined {
    const host = normalHost(hostname);
    const addr = unmapV4(normalHost(address));
    const family = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
    const of = host === addr ? '' : ` (of ${host})`;
    const always = refusedAlways(addr);
    if (always !== undefined) return `${addr}${of} ${always}, refused always`;
    if (family === 'ipv6') {
      for (const e of embeddedV4(addr)) {
        const why = refusedAlways(e.v4);
        if (why !== undefined) return `${addr}${of} is ${e.form} of ${e.v4}, which ${why}: refused always`;
      }
    }
    if (this.hasList && !(host !== addr && this.nameListed(host)) && !this.cidrs.check(addr, family)) {
      return `${addr}${of} is not in ${this.source}`;
    }
    return undefined;
  }

  private nameListed(host: string): boolean {
    return this.names.has(host) || this.suffixes.some((s) => host === s || host.endsWith(`.${s}`));
  }

  /** A `lookup` for net.connect that fails when any address of the name is refused. */
  readonly lookup: LookupFunction = (hostname: string, options: LookupOptions, callback) => {
    const cb = callback as (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
    const before = this.checkHost(hostname);
    if (before !== undefined) return cb(new OutboundRefusal(normalHost(hostname), before), '');
    this.resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return cb(err, '');
      // One refused address refuses the name: a rebinding name may alternate between answers.
      for (const a of addresses) {
        const why = this.checkAddress(hostname, a.address);
        if (why !== undefined) return cb(new OutboundRefusal(`${normalHost(hostname)} (${a.address})`, why), '');
      }
      if (addresses.length === 0) return cb(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
      if (options.all) return cb(null, addresses);
      return cb(null, addresses[0]!.address, addresses[0]!.family);
    });
  };

  /**
   * An undici connector applying the policy before every socket (IP literals skip `lookup`). The
   * socket is opened in the process's own async context, not its first caller's.
   */
  connector(o: { timeout?: number } = {}): buildConnector.connector {
    const base = buildConnector({ ...(o.timeout !== undefined ? { timeout: o.timeout } : {}), lookup: this.lookup } as buildConnector.BuildOptions);
    return (opts, callback) => SOCKETS.runInAsyncScope(() => {
      const host = normalHost(opts.hostname);
      if (isIP(host) !== 0) {
        const why = this.checkAddress(host, host);
        if (why !== undefined) {
          callback(new OutboundRefusal(host, why), null);
          return;
        }
      }
      base(opts, callback);
    });
  }

  /** A dispatcher for one-off requests (the alert webhook) under this policy. */
  dispatcher(o: { connectTimeoutMs?: number } = {}): Agent {
    return new Agent({ connect: this.connector({ timeout: o.connectTimeoutMs ?? 10_000 }) });
  }
}

function unbracket(h: string): string {
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
}

function normalHost(h: string): string {
  return unbracket(h.trim().toLowerCase()).replace(/\.$/, '');
}

/** Why an address is refused whatever the list says (metadata, link-local, this host); undefined if not. */
function refusedAlways(addr: string): string | undefined {
  const family = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
  if (METADATA_ADDRESSES.check(addr, family)) return 'is a cloud metadata address';
  if (LINK_LOCAL.check(addr, family)) return 'is link-local (169.254.0.0/16, fe80::/10)';
  if (THIS_HOST.check(addr, family)) return 'is "this host" (0.0.0.0/8, ::), which reaches the planner itself';
  return undefined;
}

/** ::ffff:169.254.169.254 (or ::ffff:a9fe:a9fe) is 169.254.169.254 for every rule: the socket connects over IPv4. */
function unmapV4(addr: string): string {
  if (isIP(addr) !== 6) return addr;
  const g = ipv6Groups(addr);
  return g && g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff ? v4Of(g[6]!, g[7]!) : addr;
}

/** The eight 16-bit groups of a valid IPv6 address (isIP === 6), a trailing dotted quad included. */
export function ipv6Groups(addr: string): number[] | undefined {
  let s = addr.split('%')[0]!;
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    const o = tail.split('.').map(Number);
    if (o.length !== 4 || o.some((x) => !Number.isInteger(x) || x < 0 || x > 255)) return undefined;
    s = `${s.slice(0, lastColon + 1)}${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const part = (h: string | undefined): number[] => (h ? h.split(':').map((x) => parseInt(x, 16)) : []);
  const head = part(halves[0]);
  const rest = halves.length === 2 ? part(halves[1]) : [];
  const fill = 8 - head.length - rest.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0) || [...head, ...rest].some((x) => !Number.isInteger(x) || x < 0 || x > 0xffff)) return undefined;
  return [...head, ...new Array<number>(fill).fill(0), ...rest];
}

function v4Of(hi: number, lo: number): string {
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** The 16 bytes of the address, for the NAT64 layouts that cut across groups. */
function bytesOf(g: number[]): number[] {
  return g.flatMap((x) => [x >> 8, x & 255]);
}

/**
 * The IPv4 addresses an IPv6 address carries, by form. Each is where a translator on the way
 * (SIIT, NAT64, a 6to4 or Teredo relay) would deliver the connection; a host that answers the
 * IPv6 literal itself (IPv4-compatible ::a.b.c.d) is judged by its IPv4 too.
 */
export function embeddedV4(addr: string): Array<{ form: string; v4: string }> {
  const g = ipv6Groups(addr);
  if (!g) return [];
  const b = bytesOf(g);
  const quad = (i: number[]): string => i.map((n) => b[n]).join('.');
  const zeros = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  const out: Array<{ form: string; v4: string }> = [];
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) out.push({ form: 'the SIIT (IPv4-translated, ::ffff:0:0/96) form', v4: v4Of(g[6]!, g[7]!) });
  // ::1 is IPv6 loopback, not 0.0.0.1; :: itself is refused as "this host".
  if (zeros(0, 6) && !(g[6] === 0 && g[7]! <= 1)) out.push({ form: 'the IPv4-compatible (::a.b.c.d) form', v4: v4Of(g[6]!, g[7]!) });
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) out.push({ form: 'the NAT64 (64:ff9b::/96) form', v4: v4Of(g[6]!, g[7]!) });
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) {
    // RFC 8215's local-use prefix, whose length the operator picks: the RFC 6052 layouts of /48, /56
    // and /64 (byte 8 is the u-octet, zero, and so are the suffix bytes after the IPv4) and /96.
    // Zeros read from another layout's padding (0.0.0.0/8) are no address: only the other rules apply.
    const form = 'a NAT64 (64:ff9b:1::/48) form';
    const layouts: Array<[number[], number]> = [[[6, 7, 9, 10], 11], [[7, 9, 10, 11], 12], [[9, 10, 11, 12], 13]];
    for (const [layout, suffix] of layouts) {
      if (b[8] === 0 && b.slice(suffix).every((x) => x === 0) && b[layout[0]!] !== 0) out.push({ form, v4: quad(layout) });
    }
    if (b[12] !== 0) out.push({ form, v4: quad([12, 13, 14, 15]) });
  }
  if (g[0] === 0x2002) out.push({ form: 'the 6to4 (2002::/16) form', v4: v4Of(g[1]!, g[2]!) });
  if (g[0] === 0x2001 && g[1] === 0) {
    out.push({ form: 'the Teredo (2001::/32) server form', v4: v4Of(g[2]!, g[3]!) });
    out.push({ form: 'the Teredo (2001::/32) client form', v4: v4Of(g[6]! ^ 0xffff, g[7]! ^ 0xffff) });
  }
  return out;
}

let fromEnvCache: { raw: string | undefined; policy: OutboundPolicy } | undefined;

/** The process's policy (PLANNER_AGENT_ALLOW), re-read when the variable changes. */
export function outboundPolicy(env: NodeJS.ProcessEnv = process.env): OutboundPolicy {
  if (env !== process.env) return OutboundPolicy.fromEnv(env);
  const raw = env[AGENT_ALLOW_ENV];
  if (!fromEnvCache || fromEnvCache.raw !== raw) fromEnvCache = { raw, policy: OutboundPolicy.fromEnv(env) };
  return fromEnvCache.policy;
}

/**
 * The refused URLs of an agent reference (a plan's agent, a delegated task's agent): its base URL
 * and the interfaces of an inline card, each with its path under the reference.
 */
export function refusedAgentUrls(
  agent: { url?: string | undefined; card?: string | { supportedInterfaces: ReadonlyArray<{ url: string }> } | undefined },
  policy: OutboundPolicy = outboundPolicy(),
): Array<{ path: Array<string | number>; message: string }> {
  const out: Array<{ path: Array<string | number>; message: string }> = [];
  const judge = (url: string, path: Array<string | number>): void => {
    const why = policy.checkUrl(url);
    if (why !== undefined) out.push({ path, message: `${displayUrl(url)} is refused: ${why}` });
  };
  if (agent.url !== undefined) judge(agent.url, ['url']);
  if (agent.card !== undefined && typeof agent.card !== 'string') {
    agent.card.supportedInterfaces.forEach((i, n) => judge(i.url, ['card', 'supportedInterfaces', n, 'url']));
  }
  return out;
}
