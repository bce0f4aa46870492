/**
 * The SSRF guard's second half: DNS answers are checked inside the socket's own lookup, so the
 * address checked is the one dialled (no DNS-rebinding window).
 */
import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { buildConnector } from 'undici';
import { type AddressPolicy, checkAddress } from '../../core/address.js';
import { BlockedAddressError, HungRequestError } from '../../core/errors.js';
import type { HostTimeouts } from '../../core/host-timeout.js';

type LookupCallback = Parameters<LookupFunction>[2];

const systemLookup: LookupFunction = (hostname, options, callback) => dns.lookup(hostname, options, callback);

export function guardedLookup(policy: AddressPolicy, port: number, base: LookupFunction): LookupFunction {
  return (hostname: string, options: LookupOptions, callback: LookupCallback) => {
    base(hostname, { ...options, all: true }, (err, result) => {
      if (err) return callback(err, '');
      const found: LookupAddress[] =
        typeof result === 'string' ? [{ address: result, family: isIP(result) || 4 }] : result;
      // Drop refused answers rather than fail: a name with a public and a private record stays reachable.
      const allowed = found.filter((a) => checkAddress(policy, a.address, port).allowed);
      const first = allowed[0];
      if (!first) {
        const refused = found[0];
        if (!refused) {
          const empty: NodeJS.ErrnoException = new Error(`lookup ${hostname}: no addresses`);
          empty.code = 'ENOTFOUND';
          return callback(empty, '');
        }
        const { range } = checkAddress(policy, refused.address, port);
        return callback(
          new BlockedAddressError(`${hostname} resolves to ${refused.address} (${range ?? 'blocked'})`),
          '',
        );
      }
      if (options.all) return callback(null, allowed);
      callback(null, first.address, first.family);
    });
  };
}

export interface GuardedConnectorOptions {
  readonly policy: AddressPolicy;
  readonly connectTimeoutMs: number;
  readonly lookup?: LookupFunction;
  /** PEM certificates replacing Node's default list. */
  readonly ca?: readonly string[];
  readonly timeouts?: HostTimeouts;
}

/** One connector per port: the allow-list can name ports, a lookup function never sees one. */
export function guardedConnector(opts: GuardedConnectorOptions): buildConnector.connector {
  const base = opts.lookup ?? systemLookup;
  const byPort = new Map<number, buildConnector.connector>();
  return (connectOpts, callback) => {
    const port = Number(connectOpts.port) || (connectOpts.protocol === 'https:' ? 443 : 80);
    // Literal hosts skip the lookup: checked here too, for any path into the agent.
    if (isIP(connectOpts.hostname)) {
      const { allowed, range } = checkAddress(opts.policy, connectOpts.hostname, port);
      if (!allowed) {
        return callback(
          new BlockedAddressError(`address ${connectOpts.hostname} is blocked (${range ?? 'blocked'})`),
          null,
        );
      }
    }
    let connector = byPort.get(port);
    if (!connector) {
      connector = buildConnector({
        timeout: opts.connectTimeoutMs,
        lookup: guardedLookup(opts.policy, port, base),
        ...(opts.ca ? { ca: [...opts.ca] } : {}),
      });
      byPort.set(port, connector);
    }
    if (!opts.timeouts?.enabled) return connector(connectOpts, callback);
    return learnedConnect(connector, opts.timeouts, opts.connectTimeoutMs, connectOpts, callback);
  };
}

/** A connect past its host's learned timeout is destroyed (HungRequestError); undici's stays behind it. */
function learnedConnect(
  connector: buildConnector.connector,
  timeouts: HostTimeouts,
  ceilingMs: number,
  connectOpts: buildConnector.Options,
  callback: buildConnector.Callback,
): void {
  const host = connectOpts.host ?? connectOpts.hostname;
  const armed = timeouts.arm(host, 'connect', ceilingMs);
  const startedAt = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const done: buildConnector.Callback = (...args) => {
    clearTimeout(timer);
    if (args[0] === null) timeouts.sample(host, 'connect', performance.now() - startedAt);
    callback(...args);
  };
  // undici's connector returns the socket it dials (its type says void).
  const socket = (connector as unknown as (o: typeof connectOpts, cb: typeof done) => Socket | undefined)(
    connectOpts,
    done,
  );
  if (armed.learned && socket) {
    timer = setTimeout(() => {
      timeouts.expired(host, 'connect', armed);
      socket.destroy(
        new HungRequestError(
          'connect',
          `${host}: hung: not connected within ${armed.ms} ms, its learned timeout`,
        ),
      );
    }, armed.ms);
    timer.unref();
  }
}
