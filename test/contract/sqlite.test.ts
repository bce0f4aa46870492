import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteFrontier } from '../../src/adapters/frontier/sqlite.js';
import { frontierContract } from './frontier-contract.js';

frontierContract('sqlite', async (clock, opts) => {
  const dir = mkdtempSync(join(tmpdir(), 'crawld-frontier-'));
  const frontier = new SqliteFrontier({ path: join(dir, 'frontier.db'), clock, ...opts });
  return {
    frontier,
    cleanup: async () => {
      await frontier.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
