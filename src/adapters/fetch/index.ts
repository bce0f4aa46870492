export { DEFAULT_FETCHER_OPTIONS, resolveFetcherOptions, type UndiciFetcherOptions } from './options.js';
export { UndiciFetcher } from './undici-fetcher.js';
