import type { Fetcher, FetchRequest, FetchResponse } from '../../ports/fetcher.js';

/**
 * The page fetcher of a daemon with browser jobs: a request whose job renders with a browser
 * (render.kind browser) goes to the browser fetcher, every other to the http one.
 */
export class RenderRouter implements Fetcher {
  readonly #http: Fetcher;
  readonly #browser: Fetcher;

  constructor(http: Fetcher, browser: Fetcher) {
    this.#http = http;
    this.#browser = browser;
  }

  fetch(request: FetchRequest): Promise<FetchResponse> {
    return request.render?.kind === 'browser' ? this.#browser.fetch(request) : this.#http.fetch(request);
  }

  renderIdle(): boolean {
    return this.#browser.renderIdle?.() ?? true;
  }

  async close(): Promise<void> {
    // The browser first: it fetches through the http fetcher's connections.
    await this.#browser.close();
    await this.#http.close();
  }
}
