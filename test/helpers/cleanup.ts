import { afterEach } from 'vitest';

/** What a test starts and must end: a server or site (close), a daemon or redis-server (stop). */
export type Closable = { close(): Promise<void> } | { stop(): Promise<void> };

/**
 * Registers an afterEach that ends what each test handed to the returned function, the last
 * started first (a daemon before the server it crawls), once each. The function returns its
 * argument, so a test keeps a typed const: `const server = track(await startServer(...))`.
 */
/** What a beforeAll hook set, for a fixture's getter; throws `message` when read before it ran. */
export function started<T>(value: T | undefined, message: string): T {
  if (value === undefined) throw new Error(message);
  return value;
}

export function closeAfterEach(): <T extends Closable>(thing: T) => T {
  const open: Closable[] = [];
  afterEach(async () => {
    for (const thing of open.splice(0).reverse()) await ('stop' in thing ? thing.stop() : thing.close());
  });
  return (thing) => {
    open.push(thing);
    return thing;
  };
}
