/** A job's cookie jar (RFC 6265). Values are secrets: never logged, in errors, labels or records. */
export interface CookieJar {
  cookieHeader(url: URL): Promise<string>;
  /** Resolves once stored, so a later request (here or, shared, elsewhere) carries them. Never rejects. */
  storeResponse(url: URL, setCookies: readonly string[]): Promise<void>;
}
