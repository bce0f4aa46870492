// Crawlee and Playwright for the browser benches, installed on first use into bench/peers
// (npm ci, never by crawld's own npm ci; no browser download: the benches use Debian's Chromium).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const peers = join(dirname(fileURLToPath(import.meta.url)), 'peers');

export function installPeers() {
  if (existsSync(join(peers, 'node_modules/crawlee')) && existsSync(join(peers, 'node_modules/playwright')))
    return;
  console.log('installing Crawlee and Playwright into bench/peers (npm ci, no browser download)...');
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], {
    cwd: peers,
    stdio: 'inherit',
    env: { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
  });
  if (r.status !== 0) throw new Error('npm ci in bench/peers failed');
}
