// A static docroot served by nginx on a free 127.0.0.1 port, for the benchmarks on real sites
// (real-site.mjs, traps-real.mjs): one worker, no access log, everything under a temp prefix.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const haveNginx = () => !spawnSync('nginx', ['-v']).error;

export const freePort = () =>
  new Promise((res) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });

/** Starts nginx on `docroot`; resolves once it answers `/`, with its origin and stop(). */
export async function startNginx(docroot) {
  const port = await freePort();
  const prefix = mkdtempSync(join(tmpdir(), 'crawld-nginx-'));
  const conf = join(prefix, 'nginx.conf');
  writeFileSync(
    conf,
    `worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log;
events { worker_connections 4096; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  access_log off;
  client_body_temp_path ${prefix};
  proxy_temp_path ${prefix};
  fastcgi_temp_path ${prefix};
  uwsgi_temp_path ${prefix};
  scgi_temp_path ${prefix};
  server { listen 127.0.0.1:${port}; root ${docroot}; index index.html; }
}
`,
  );
  const proc = spawn('nginx', ['-c', conf, '-p', prefix, '-g', 'daemon off;'], { stdio: 'inherit' });
  for (let i = 0; i < 100; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    origin: `http://127.0.0.1:${port}`,
    stop: () => {
      proc.kill('SIGQUIT');
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}
