/** Each URL's last announced lastmod: a re-read recrawls only pages whose lastmod moved forward. */
export interface SitemapStateStore {
  open(): Promise<void>;
  close(): Promise<void>;
  lastmods(jobId: string, urls: readonly string[]): Promise<Map<string, number>>;
  setLastmods(jobId: string, entries: readonly { url: string; lastmod: number }[]): Promise<void>;
}
