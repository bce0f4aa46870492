/**
 * A job's cookie jar (RFC 6265) as the fetcher uses it: what to send to a URL, and what a
 * response from a URL set. Cookie values are secrets: an implementation never logs them, puts
 * them in errors, metrics labels or records.
 */
export interface CookieJar {
  /** The `Cookie` header value for a request to `url`, '' when no cookie applies. */
  cookieHeader(url: URL): Promise<string>;
  /**
   * Stores the `Set-Cookie` header values of a response received from `url` (each value one
   * header line, as received). Resolves once they are stored where the jar keeps them, so a
   * request made after that (by this daemon or, on a shared store, another) carries them.
   * Never rejects: a cookie that cannot be stored is dropped and counted.
   */
  storeResponse(url: URL, setCookies: readonly string[]): Promise<void>;
}
