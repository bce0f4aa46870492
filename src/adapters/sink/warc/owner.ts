/**
 * Who writes a folder's open files: `.{prefix}-{instance}.owner` holds the host and pid of the
 * daemon writing that instance's files. A restarted daemon has another default instance id
 * (hostname-pid), so at start it also closes the `.open` files of instances whose owner was a
 * process of this host that is gone; another host's files are left to that host.
 */

import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '../../process-alive.js';

interface Owner {
  readonly host: string;
  readonly pid: number;
}

export function ownerPath(dir: string, prefix: string, instance: string): string {
  return join(dir, `.${prefix}-${instance}.owner`);
}

export function claimOwner(path: string): void {
  writeFileSync(path, JSON.stringify({ host: hostname(), pid: process.pid }));
}

export function releaseOwner(path: string): void {
  rmSync(path, { force: true });
}

/** Whether the instance's writer is known to be gone: it ran on this host and its process is not. */
export function ownerGone(path: string): boolean {
  let owner: Owner;
  try {
    owner = JSON.parse(readFileSync(path, 'utf8')) as Owner;
  } catch {
    return false;
  }
  return owner.host === hostname() && owner.pid !== process.pid && !processAlive(owner.pid);
}
