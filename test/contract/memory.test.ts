import { MemoryFrontier } from '../../src/adapters/frontier/memory/memory-frontier.js';
import { frontierContract } from './frontier-contract.js';

frontierContract('memory', async (clock, opts) => ({
  frontier: new MemoryFrontier({ clock, ...opts }),
  cleanup: async () => {},
}));
