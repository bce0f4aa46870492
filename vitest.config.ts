import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * The helpers a test imports to start (or find) a browser, a Redis Cluster or a PostgreSQL
 * server: a test that needs one of them cannot do without its helper, so the fast project below
 * follows the tests themselves, with no list of file names to keep up to date.
 */
const NEEDS_SERVICE = /from '\.\.\/helpers\/(js-site|redis-cluster|postgres-server)\.js'/;

/** Unit, contract and integration test files that need none of those (`npm run test:fast`). */
function fastFiles(): string[] {
  return ['unit', 'contract', 'integration'].flatMap((dir) =>
    readdirSync(join(import.meta.dirname, 'test', dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => `test/${dir}/${f}`)
      .filter((f) => !NEEDS_SERVICE.test(readFileSync(join(import.meta.dirname, f), 'utf8'))),
  );
}

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    reporters: ['default'],
    // `npm test` runs both projects; `npm run test:fast` only the first.
    //
    // Workers: vitest's default is one fewer than the cores, one on a 2-core machine, and the
    // files then ran one at a time although most of a file's time is waiting (on a site's
    // latency, a child daemon, a lease): 17-20 minutes. More workers than cores overlap the
    // waits; the tests assert no speed, so the load this adds cannot fail them.
    projects: [
      {
        extends: true,
        // In-process files: no isolation between the files of a worker, so that the modules
        // under test are imported once per worker instead of once per file (import was 64 of
        // the 180 CPU seconds of the fast project on one worker; 24 without isolation).
        test: {
          name: 'fast',
          include: fastFiles(),
          isolate: false,
          maxWorkers: 4,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        // Daemons, browsers and clusters in child processes: 2 files at a time on 2 cores (3
        // took the load average to 14 with other work on the machine).
        test: {
          name: 'rest',
          include: ['test/**/*.test.ts'],
          exclude: fastFiles(),
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
