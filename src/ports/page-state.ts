export interface PageState {
  readonly fieldsHash: string;
  readonly fields: Record<string, unknown>;
  readonly fetchedAt: number;
  /** Sent back as If-None-Match / If-Modified-Since. */
  readonly etag?: string;
  readonly lastModified?: string;
  /** What a 304 is counted as saving. */
  readonly bodyBytes?: number;
  readonly contentHash?: string;
  readonly intervalMs?: number;
}

export interface PageStateStore {
  open(): Promise<void>;
  get(jobId: string, url: string): Promise<PageState | undefined>;
  put(jobId: string, url: string, state: PageState): Promise<void>;
  close(): Promise<void>;
}

export interface ChangeRecord {
  readonly kind: 'change';
  readonly url: string;
  readonly jobId: string;
  /** With generation, the record's dedupe key. */
  readonly taskId: string;
  readonly generation: number;
  readonly detectedAt: string;
  readonly previousFetchedAt: string;
  readonly changes: Record<string, { readonly old: unknown; readonly new: unknown }>;
}

/** At least once; ChangeDeliveryError dead-letters the page without its new state, so a redrive delivers again. */
export interface ChangeSink {
  readonly name: string;
  open(): Promise<void>;
  write(change: ChangeRecord): Promise<void>;
  close(): Promise<void>;
}
