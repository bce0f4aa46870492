import { writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJsonl, runCli, tempDir } from '../helpers/cli.js';
import { makeTestCerts, type TestCerts } from '../helpers/tls-certs.js';

/** `crawld crawl --once` (no --http-port) on an https site behind a private CA. */
describe('TLS through the CLI', () => {
  let certs: TestCerts;
  let server: https.Server;
  let url: string;
  beforeAll(async () => {
    certs = makeTestCerts();
    server = https.createServer(certs.good, (_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<title>private shop</title>'),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  function config(dir: string, tls: string): string {
    const file = join(dir, 'crawld.yaml');
    writeFileSync(
      file,
      [
        `dataDir: ${join(dir, 'data')}`,
        `fetch: { allowPrivateNetworks: true${tls} }`,
        'jobs: [{ id: s, seeds: [], robots: false }]',
      ].join('\n'),
    );
    return file;
  }

  it('an untrusted certificate is dead-lettered as tls_untrusted, and says so in the log line', async () => {
    const dir = tempDir();
    const r = await runCli(['crawl', url, '--once', '--config', config(dir, '')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/0 ok, 1 failed/);
    expect(r.stderr).toMatch(/task dead-lettered.*"reason":"tls_untrusted"/);
  });

  it('fetch.tls.ca trusts the private CA', async () => {
    const dir = tempDir();
    const r = await runCli([
      'crawl',
      url,
      '--once',
      '--config',
      config(dir, `, tls: { ca: ${certs.caFile} }`),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const records = readJsonl(join(dir, 'data', 'results.jsonl'));
    expect(records.map((x) => (x.fields as { title: string }).title)).toEqual(['private shop']);
  });

  it('a fetch.tls.ca that is not a PEM file is refused at check time, naming the field', async () => {
    const dir = tempDir();
    const r = await runCli(['check-config', config(dir, `, tls: { ca: ${join(dir, 'missing.pem')} }`)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('fetch.tls.ca:');
  });
});
