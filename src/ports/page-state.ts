/** The fields last extracted from each page, to detect changes between crawls. */
export interface PageState {
  readonly fieldsHash: string;
  readonly fields: Record<string, unknown>;
  /** Epoch ms of the fetch that produced these fields. */
  readonly fetchedAt: number;
  /** The page's validators from its last 200, sent back as If-None-Match / If-Modified-Since. */
  readonly etag?: string;
  readonly lastModified?: string;
  /** Decoded body size of the last 200: what a 304 is counted as saving. */
  readonly bodyBytes?: number;
  /** sha256 hex of that body, repeated in the record of a 304. */
  readonly contentHash?: string;
  /** The page's adaptive recrawl interval (core/recrawl-interval.ts), when its job has one. */
  readonly intervalMs?: number;
}

export interface PageStateStore {
  open(): Promise<void>;
  get(jobId: string, url: string): Promise<PageState | undefined>;
  put(jobId: string, url: string, state: PageState): Promise<void>;
  close(): Promise<void>;
}

/** A change record: what changed on a page since its previous crawl. */
export interface ChangeRecord {
  readonly kind: 'change';
  readonly url: string;
  readonly jobId: string;
  /** With generation, the dedupe key of the record (at-least-once delivery). */
  readonly taskId: string;
  readonly generation: number;
  readonly detectedAt: string;
  readonly previousFetchedAt: string;
  readonly changes: Record<string, { readonly old: unknown; readonly new: unknown }>;
}

/**
 * Where change records go (JSONL by default, webhooks). At-least-once. write() rejects with
 * ChangeDeliveryError when the sink has given up on a record: the task runner then
 * dead-letters the page without storing its new state, so a redrive delivers the change again.
 */
export interface ChangeSink {
  readonly name: string;
  open(): Promise<void>;
  write(change: ChangeRecord): Promise<void>;
  close(): Promise<void>;
}
