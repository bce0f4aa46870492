/**
 * The `lastmod` of each URL as a sitemap last announced it, so that a sitemap re-read
 * recrawls exactly the pages whose lastmod moved forward.
 */
export interface SitemapStateStore {
  open(): Promise<void>;
  close(): Promise<void>;
  /** Known lastmods (epoch ms) of these URLs of a job; URLs never seen are absent. */
  lastmods(jobId: string, urls: readonly string[]): Promise<Map<string, number>>;
  setLastmods(jobId: string, entries: readonly { url: string; lastmod: number }[]): Promise<void>;
}
