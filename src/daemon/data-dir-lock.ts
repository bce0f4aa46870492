import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from '../adapters/process-alive.js';
import { DataDirLockedError } from '../core/errors.js';

/**
 * One daemon per data dir: two writers on one SQLite frontier and one results file would
 * each reclaim the other's leases at startup. A lock left by a killed process is taken over.
 */
export function lockDataDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'crawld.lock');
  for (let i = 0; i < 2; i++) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      return () => rmSync(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
      if (Number.isFinite(pid) && pid !== process.pid && processAlive(pid)) {
        throw new DataDirLockedError(`data dir ${dir} is in use by process ${pid}`);
      }
      rmSync(path, { force: true });
    }
  }
  throw new DataDirLockedError(`cannot lock data dir ${dir}`);
}
