/**
 * Fixed name -> address answers before DNS (`fetch.resolve`, as curl's --resolve and Chrome's
 * --host-resolver-rules): a staging host crawled under its production name, or test hosts on
 * 127.0.0.1. The answer still passes the SSRF guard like any DNS answer.
 */
import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';

export function staticLookup(
  table: Readonly<Record<string, string>>,
  fallback: LookupFunction = (h, o, cb) => dns.lookup(h, o, cb),
): LookupFunction {
  const entries = new Map(
    Object.entries(table).map(([name, ip]) => [name.toLowerCase().replace(/\.$/, ''), ip]),
  );
  return (hostname, options, callback) => {
    const address = entries.get(hostname.toLowerCase().replace(/\.$/, ''));
    if (address === undefined) return fallback(hostname, options, callback);
    const family = isIP(address);
    const cb = callback as (err: NodeJS.ErrnoException | null, a: unknown, f?: number) => void;
    if (options.all) cb(null, [{ address, family }]);
    else cb(null, address, family);
  };
}
