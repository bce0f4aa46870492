/**
 * A compiled set of scope host patterns, so matching a link's host costs a few Map lookups
 * whatever the number of patterns. A job's scope defaults to its seeds' hosts, and a broad
 * crawl seeds thousands of hosts: matching each link against every pattern in turn was 19% of
 * the CPU of a 2,000-host crawl (bench/breadth.mjs). Same semantics as matchesSplit in url.ts:
 * '*' any host, 'name' exactly, '*.apex' apex and subdomains; a pattern with a port also
 * requires that port.
 */

export interface SplitHost {
  readonly name: string;
  readonly port: string | undefined;
}

/** '' in a port set: the pattern names no port (any port matches). */
const ANY_PORT = '';

export class HostPatterns {
  /** Ports of '*' patterns. */
  readonly #star = new Set<string>();
  /** name → ports of exact patterns. */
  readonly #exact = new Map<string, Set<string>>();
  /** apex → ports of '*.apex' patterns. */
  readonly #wild = new Map<string, Set<string>>();

  constructor(patterns: readonly SplitHost[]) {
    for (const p of patterns) {
      const port = p.port ?? ANY_PORT;
      if (p.name === '*') this.#star.add(port);
      else if (p.name.startsWith('*.')) add(this.#wild, p.name.slice(2), port);
      else add(this.#exact, p.name, port);
    }
  }

  matches(h: SplitHost): boolean {
    if (hasPort(this.#star, h.port)) return true;
    if (hasPort(this.#exact.get(h.name), h.port)) return true;
    if (this.#wild.size === 0) return false;
    // The name itself, then each parent domain: 'a.b.example.com', 'b.example.com', ...
    for (let name = h.name; ; ) {
      if (hasPort(this.#wild.get(name), h.port)) return true;
      const dot = name.indexOf('.');
      if (dot < 0) return false;
      name = name.slice(dot + 1);
    }
  }
}

function add(map: Map<string, Set<string>>, key: string, port: string): void {
  const set = map.get(key);
  if (set) set.add(port);
  else map.set(key, new Set([port]));
}

function hasPort(ports: ReadonlySet<string> | undefined, port: string | undefined): boolean {
  return ports !== undefined && (ports.has(ANY_PORT) || (port !== undefined && ports.has(port)));
}
