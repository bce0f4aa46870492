export interface ResultRecord {
  /** As the linking page wrote it. */
  readonly url: string;
  /** The canonical dedupe key. */
  readonly key?: string;
  readonly finalUrl: string;
  readonly jobId: string;
  /** With generation, the exactly-once key. */
  readonly taskId: string;
  readonly generation: number;
  readonly status: number;
  /** A 304: no body came; contentHash and fields are the last 200's. */
  readonly unchanged?: true;
  readonly fetchedAt: string;
  readonly depth: number;
  readonly contentType: string;
  readonly encoding?: string;
  readonly contentHash: string;
  readonly bytes: number;
  readonly durationMs: number;
  readonly fields: Record<string, unknown>;
  /** docs/traps.md. */
  readonly trap?: 'soft_404' | 'repeated_path' | 'near_duplicate_series';
  /** Part of the page's record, so a sink stores all or none. */
  readonly items?: Record<string, unknown>[];
  readonly noindex?: true;
  readonly canonicalUrl?: string;
}

export function recordKey(r: { taskId: string; generation: number }): string {
  return `${r.taskId}#${r.generation}`;
}

/** write() resolves once a crash cannot lose the record; the task is acked only after, and recover() reconciles. */
export interface Sink {
  readonly name: string;
  open(): Promise<void>;
  write(record: ResultRecord): Promise<void>;
  recover(keys: ReadonlySet<string>): Promise<Set<string>>;
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** What a buffering sink reports; the daemon turns it into events. */
export interface SinkObserver {
  batch(e: { sink: string; records: number; durationMs: number }): void;
  /** `reason` is bounded. */
  error(e: { sink: string; reason: string }): void;
  bufferDepth(e: { sink: string; depth: number }): void;
}

export const NO_SINK_OBSERVER: SinkObserver = {
  batch: () => {},
  error: () => {},
  bufferDepth: () => {},
};
