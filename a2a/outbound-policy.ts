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
 * Rules. Link-local (169.254.0.0/16, fe80::/10) and cloud metadata addresses and names are refused
 * always. PLANNER_AGENT_ALLOW, when set, is the whole list of what else is allowed: host names
 * (`agents.example.com`), suffixes (`*.example.com`, which also admits the bare name), IP addresses
 * and CIDRs (`10.0.0.0/8`, `fd00::/8`). Unset, everything else (loopback included) is allowed.
 * Redirects are never followed (undici's dispatcher does not, and nothing here adds it).
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { displayUrl } from './call-context';

export const AGENT_ALLOW_ENV = 'PLANNER_AGENT_ALLOW';

const METADATA_ADDRESSES = ['169.254.169.254', '169.254.170.2', 'fd00:ec2::254', '100.100.100.200'];
const METADATA_NAMES = ['metadata.google.internal', 'metadata.goog', 'metadata'];

const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6');

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
    if (METADATA_ADDRESSES.includes(addr)) return `${addr}${of} is a cloud metadata address, refused always`;
    if (LINK_LOCAL.check(addr, family)) return `${addr}${of} is link-local (169.254.0.0/16, fe80::/10), refused always`;
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

  /** An undici connector applying the policy before every socket (IP literals skip `lookup`). */
  connector(o: { timeout?: number } = {}): buildConnector.connector {
    const base = buildConnector({ ...(o.timeout !== undefined ? { timeout: o.timeout } : {}), lookup: this.lookup } as buildConnector.BuildOptions);
    return (opts, callback) => {
      const host = normalHost(opts.hostname);
      if (isIP(host) !== 0) {
        const why = this.checkAddress(host, host);
        if (why !== undefined) {
          callback(new OutboundRefusal(host, why), null);
          return;
        }
      }
      base(opts, callback);
    };
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

/** ::ffff:169.254.169.254 (or ::ffff:a9fe:a9fe) is 169.254.169.254 for every rule. */
function unmapV4(addr: string): string {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(addr);
  if (dotted) return dotted[1]!;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(addr);
  if (!hex) return addr;
  const hi = parseInt(hex[1]!, 16);
  const lo = parseInt(hex[2]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
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
