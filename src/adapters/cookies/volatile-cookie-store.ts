import type { CookieChange, CookieChanges, CookieSnapshot, CookieStore } from '../../ports/cookie-store.js';

/** A memory frontier's: the jar lives as long as the process, like the frontier itself. */
export class VolatileCookieStore implements CookieStore {
  readonly shared = false;
  async open(): Promise<void> {}
  async load(): Promise<CookieSnapshot> {
    return { cookies: [], version: 0 };
  }
  async write(_jobId: string, _changes: readonly CookieChange[]): Promise<void> {}
  async changesSince(_jobId: string, version: number): Promise<CookieChanges> {
    return { changes: [], reset: false, version };
  }
  async close(): Promise<void> {}
}
