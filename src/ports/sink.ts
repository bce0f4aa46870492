export interface ResultRecord {
  /** The URL requested: as the page that linked it wrote it (query order and escapes kept). */
  readonly url: string;
  /**
   * The frontier's dedupe key for it (the canonical form: query sorted, tracking parameters
   * dropped): the same for every variant of one URL. Always set by the task runner.
   */
  readonly key?: string;
  readonly finalUrl: string;
  readonly jobId: string;
  /** Task id and generation: together the exactly-once key of a record. */
  readonly taskId: string;
  readonly generation: number;
  readonly status: number;
  /**
   * True on a recrawl the server answered 304 Not Modified: no body came, so contentHash and
   * fields are those of the last 200, and bytes is 0.
   */
  readonly unchanged?: true;
  /** ISO 8601. */
  readonly fetchedAt: string;
  readonly depth: number;
  readonly contentType: string;
  /** The character encoding the page was decoded with (WHATWG name): fields are UTF-8 whatever it was. */
  readonly encoding?: string;
  /** sha256 hex of the decoded body. */
  readonly contentHash: string;
  readonly bytes: number;
  readonly durationMs: number;
  readonly fields: Record<string, unknown>;
  /**
   * Set when a trap rule kept the page's links from being followed (docs/traps.md): `soft_404`
   * (the host's answer for a missing page), `repeated_path`, `near_duplicate_series`.
   */
  readonly trap?: 'soft_404' | 'repeated_path' | 'near_duplicate_series';
  /**
   * Records per array element when the job's JSON rules set `items`. They belong to the page's
   * record so that a sink stores all of them or none (one exactly-once key per page).
   */
  readonly items?: Record<string, unknown>[];
  /** The page asked not to be indexed (meta robots / X-Robots-Tag noindex or none). */
  readonly noindex?: true;
  /** The page's `<link rel="canonical">`, resolved. */
  readonly canonicalUrl?: string;
}

/** The exactly-once key of a record: one record per task per generation. */
export function recordKey(r: { taskId: string; generation: number }): string {
  return `${r.taskId}#${r.generation}`;
}

/**
 * Where results go. write() resolves once the record is durable enough that a crash after it
 * cannot lose it (for JSONL: written to the file descriptor). The scheduler acks the task in
 * the frontier only after write() resolves, so a crash can only leave records whose tasks are
 * still leased: recover() is given those keys at startup and returns the ones it already
 * holds, which the scheduler then acks instead of fetching again.
 */
export interface Sink {
  /** Kind of sink, for metrics labels and logs ('jsonl', 'postgres', ...). */
  readonly name: string;
  open(): Promise<void>;
  write(record: ResultRecord): Promise<void>;
  /** Of the given record keys, the ones already stored. */
  recover(keys: ReadonlySet<string>): Promise<Set<string>>;
  flush(): Promise<void>;
  close(): Promise<void>;
}

/**
 * What a buffering sink reports, for the crawld_sink_* metrics. The daemon turns these calls
 * into crawl events; sinks never see metrics or logs. `sink` is the sink's kind (bounded).
 */
export interface SinkObserver {
  /** A batch was stored: `records` rows or deliveries, in `durationMs` (retries included). */
  batch(e: { sink: string; records: number; durationMs: number }): void;
  /** A write attempt failed; `reason` is bounded (transient, permanent, http_500, ...). */
  error(e: { sink: string; reason: string }): void;
  /** Records buffered and not yet stored. */
  bufferDepth(e: { sink: string; depth: number }): void;
}

export const NO_SINK_OBSERVER: SinkObserver = {
  batch: () => {},
  error: () => {},
  bufferDepth: () => {},
};
