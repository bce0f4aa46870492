import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { rootCertificates } from 'node:tls';
import { parseConfigInput } from '../../src/config/config.js';

const DOC = resolve(import.meta.dirname, '../../docs/config.md');
export const DOC_ENV = {
  CRAWLD_ADMIN_TOKEN: 'doc-admin-token-0123456789',
  HOOK_TOKEN: 'h',
  API_TOKEN: 'a',
  PROXY_PASS: 'p',
};

export type Section = Record<string, unknown>;
export type Doc = Record<string, unknown> & { frontier: Section; http: Section };

/** The complete example config of docs/config.md, secrets expanded from DOC_ENV. */
export function docExample(): Doc {
  const text = /```yaml\n([\s\S]*?)```/.exec(readFileSync(DOC, 'utf8'))?.[1];
  if (!text) throw new Error('docs/config.md has no yaml block');
  const doc = parseConfigInput(text, DOC_ENV) as Doc & { fetch?: { tls?: { ca?: string } } };
  // The example's CA file exists on no test machine: a throwaway one stands in for it.
  if (doc.fetch?.tls?.ca !== undefined) doc.fetch.tls.ca = throwawayCa();
  return doc;
}

let ca: string | undefined;
function throwawayCa(): string {
  if (ca) return ca;
  ca = join(mkdtempSync(join(tmpdir(), 'crawld-doc-ca-')), 'ca.pem');
  // Any certificate will do: the example is validated and started, never used for a handshake.
  writeFileSync(ca, rootCertificates[0]!);
  return ca;
}

/** The example as one config: the SQLite frontier (url and keyPrefix are Redis-only) and one admin token source. */
export function docConfig(): Doc {
  const doc = docExample();
  const { url: _u, keyPrefix: _k, nodes: _n, ...sqlite } = doc.frontier;
  const { adminTokenFile: _f, ...http } = doc.http;
  return { ...doc, frontier: sqlite, http };
}
