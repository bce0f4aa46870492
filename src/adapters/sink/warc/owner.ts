/**
 * `.{prefix}-{instance}.owner` holds the writer's host and pid: a restarted daemon has a new
 * instance id, so it closes the `.open` files of this host's dead writers (never another host's).
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

export function ownerGone(path: string): boolean {
  let owner: Owner;
  try {
    owner = JSON.parse(readFileSync(path, 'utf8')) as Owner;
  } catch {
    return false;
  }
  return owner.host === hostname() && owner.pid !== process.pid && !processAlive(owner.pid);
}
