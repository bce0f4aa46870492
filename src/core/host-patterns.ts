/** Scope host patterns compiled to Map lookups: a broad crawl seeds thousands of hosts. Same semantics as url.ts. */

export interface SplitHost {
  readonly name: string;
  readonly port: string | undefined;
}

const ANY_PORT = '';

export class HostPatterns {
  readonly #star = new Set<string>();
  readonly #exact = new Map<string, Set<string>>();
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
