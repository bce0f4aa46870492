import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { rootCertificates } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UndiciFetcher } from '../../src/adapters/fetch/undici-fetcher.js';
import { TlsError } from '../../src/core/errors.js';
import { makeTestCerts, type TestCerts } from '../helpers/tls-certs.js';

const policy = { allowPrivateNetworks: true, allow: [] };
let certs: TestCerts;
const servers: (http.Server | https.Server)[] = [];

async function serve(server: http.Server | https.Server): Promise<string> {
  server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<title>ok</title>'),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

beforeAll(() => {
  certs = makeTestCerts();
});
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

async function failure(url: string, ca?: string[]): Promise<TlsError> {
  const fetcher = new UndiciFetcher({ addressPolicy: policy, ...(ca ? { ca } : {}) });
  try {
    await fetcher.fetch({ url });
  } catch (err) {
    return err as TlsError;
  } finally {
    await fetcher.close();
  }
  throw new Error(`${url} did not fail`);
}

describe('TLS failures get their own reasons', () => {
  it.each([
    ['self-signed', () => certs.selfSigned, false, 'tls_untrusted'],
    ['signed by a CA not trusted', () => certs.good, false, 'tls_untrusted'],
    ['expired', () => certs.expired, true, 'tls_expired'],
    ['for another host name', () => certs.wrongName, true, 'tls_hostname'],
  ] as const)('%s', async (_name, pair, trustCa, reason) => {
    const url = await serve(https.createServer(pair()));
    const err = await failure(url, trustCa ? [...rootCertificates, certs.ca] : undefined);
    expect(err).toBeInstanceOf(TlsError);
    expect(err.reason).toBe(reason);
    expect(err.retryable).toBe(false);
  });

  it('a handshake that fails (plain HTTP on the https port) is tls_handshake', async () => {
    const url = await serve(http.createServer());
    const err = await failure(url);
    expect(err).toBeInstanceOf(TlsError);
    expect(err.reason).toBe('tls_handshake');
  });

  it('a private CA given as ca is trusted besides the public ones', async () => {
    const url = await serve(https.createServer(certs.good));
    const fetcher = new UndiciFetcher({ addressPolicy: policy, ca: [...rootCertificates, certs.ca] });
    try {
      const res = await fetcher.fetch({ url });
      expect(res.status).toBe(200);
      expect(res.body.toString()).toContain('ok');
    } finally {
      await fetcher.close();
    }
  });
});
