import { CookieJars } from './cookie-jars.js';
import type { Root } from './engine.js';
import type { BuiltFrontier } from './frontier-types.js';
import { RenderChoices } from './render-choices.js';
import { TrapMemories } from './trap-memories.js';

/**
 * The jobs' cookie jars, render decisions and trap memories, in the stores beside the frontier; their writes
 * end before the frontier closes.
 */
export async function openJobStates(root: Root, store: BuiltFrontier) {
  const cookieStore = store.createMapStore('cookies');
  await cookieStore.open();
  root.stack.push('cookie store', () => cookieStore.close());
  const cookies = new CookieJars(cookieStore, {
    received: (jobId, outcome) => root.events.emit('cookie', { jobId, outcome }),
    storeError: (jobId, op, error) => root.events.emit('cookieStoreError', { jobId, op, error }),
  });
  root.stack.push('cookie jars', () => cookies.close());
  const renderStore = store.createMapStore('render');
  await renderStore.open();
  root.stack.push('render store', () => renderStore.close());
  const renderChoices = new RenderChoices(renderStore, root.clock, root.events);
  root.stack.push('render decisions', () => renderChoices.close());
  const trapStore = store.createMapStore('traps');
  await trapStore.open();
  root.stack.push('trap store', () => trapStore.close());
  const traps = new TrapMemories(trapStore, root.clock, root.events);
  root.stack.push('trap memories', () => traps.close());
  return { cookies, renderChoices, traps };
}
