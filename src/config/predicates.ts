import { readFileSync } from 'node:fs';

/** The tests behind the config's string options, shared by the schema, the CLI and the admin API. */

export function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

export function isPostgresUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'postgres:' || u.protocol === 'postgresql:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/** The frontier kinds kept in Redis (one server or a Cluster): shared by several daemons. */
export function isRedisKind(kind: string): boolean {
  return kind === 'redis' || kind === 'redis-cluster';
}

export function isRedisNode(s: string): boolean {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^\s:/@,[\]]+):(\d{1,5})$/.exec(s);
  return m !== null && Number(m[2]) >= 1 && Number(m[2]) <= 65535;
}

/** redis-cluster://HOST:PORT,HOST:PORT,... → the nodes, or undefined if it is not one. */
export function parseRedisClusterUrl(s: string): string[] | undefined {
  const m = /^redis-cluster:\/\/([^/?#]+)\/?$/.exec(s);
  const nodes = m?.[1]?.split(',');
  return nodes?.every(isRedisNode) ? nodes : undefined;
}

export function isRedisUrl(s: string): boolean {
  try {
    const u = new URL(s);
    const db = u.pathname.replace(/^\//, '');
    return (u.protocol === 'redis:' || u.protocol === 'rediss:') && u.hostname !== '' && /^\d{0,2}$/.test(db);
  } catch {
    return false;
  }
}

export function isValidRegex(s: string): boolean {
  try {
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
}

export function isPemFile(path: string): boolean {
  try {
    return readFileSync(path, 'utf8').includes('-----BEGIN CERTIFICATE-----');
  } catch {
    return false;
  }
}
