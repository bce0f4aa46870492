import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Throwaway certificates made with openssl at test time: a private CA and leaves it signed. */
export interface TestCerts {
  readonly caFile: string;
  readonly ca: string;
  /** Signed by the CA for 127.0.0.1 and localhost, valid now. */
  readonly good: { key: string; cert: string };
  /** Signed by the CA for 127.0.0.1, expired in 2020. */
  readonly expired: { key: string; cert: string };
  /** Signed by the CA for other.test only. */
  readonly wrongName: { key: string; cert: string };
  /** Self-signed for 127.0.0.1. */
  readonly selfSigned: { key: string; cert: string };
}

export function makeTestCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'crawld-tls-'));
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  /** A new RSA key NAME.key and a request for it (`-x509`: a self-signed certificate) in `out`. */
  const request = (name: string, out: string, subject: string, ...extra: string[]) =>
    run(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      out,
      '-subj',
      subject,
      ...extra,
    );
  request('ca', 'ca.pem', '/CN=crawld test CA', '-x509', '-days', '2');
  mkdirSync(join(dir, 'db'));
  writeFileSync(join(dir, 'db', 'index.txt'), '');
  writeFileSync(join(dir, 'db', 'serial'), '01\n');
  writeFileSync(
    join(dir, 'ca.cnf'),
    '[ca]\ndefault_ca = d\n[d]\ndatabase = db/index.txt\nserial = db/serial\nnew_certs_dir = db\ndefault_md = sha256\npolicy = p\ncopy_extensions = copy\nunique_subject = no\n[p]\ncommonName = supplied\n',
  );
  const leaf = (name: string, san: string, dates: string[]) => {
    request(name, `${name}.csr`, `/CN=${name}`, '-addext', `subjectAltName=${san}`);
    run(
      'ca',
      '-batch',
      '-config',
      'ca.cnf',
      '-cert',
      'ca.pem',
      '-keyfile',
      'ca.key',
      '-in',
      `${name}.csr`,
      '-out',
      `${name}.pem`,
      ...dates,
    );
    return { key: read(`${name}.key`), cert: read(`${name}.pem`) };
  };
  const good = leaf('good', 'IP:127.0.0.1,DNS:localhost', ['-days', '2']);
  const expired = leaf('expired', 'IP:127.0.0.1', [
    '-startdate',
    '20200101000000Z',
    '-enddate',
    '20200102000000Z',
  ]);
  const wrongName = leaf('wrong', 'DNS:other.test', ['-days', '2']);
  request(
    'self',
    'self.pem',
    '/CN=127.0.0.1',
    '-x509',
    '-days',
    '2',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
  );
  return {
    caFile: join(dir, 'ca.pem'),
    ca: read('ca.pem'),
    good,
    expired,
    wrongName,
    selfSigned: { key: read('self.key'), cert: read('self.pem') },
  };
}
