import { type ResultRecord, recordKey } from '../../ports/sink.js';

/** One table row: a page, or one item of a page whose JSON rules set `items`. */
export interface PgRow {
  readonly url: string;
  readonly recordKey: string;
  /** 0 for a page record; the item's index for item records. */
  readonly item: number;
  readonly jobId: string;
  readonly taskId: string;
  readonly generation: number;
  readonly finalUrl: string;
  readonly status: number;
  readonly fetchedAt: string;
  readonly depth: number;
  readonly contentType: string;
  readonly contentHash: string;
  readonly bytes: number;
  readonly durationMs: number;
  /** JSON text for the jsonb column. */
  readonly fields: string;
  readonly noindex: boolean;
  readonly canonicalUrl: string | null;
  /** The dedupe key (ResultRecord.key); null for records written before it existed. */
  readonly key: string | null;
  /** Why the page's links were not followed (ResultRecord.trap), if a trap rule said so. */
  readonly trap: string | null;
}

export function rowsOf(r: ResultRecord): PgRow[] {
  const base = {
    url: r.url,
    recordKey: recordKey(r),
    jobId: r.jobId,
    taskId: r.taskId,
    generation: r.generation,
    finalUrl: r.finalUrl,
    status: r.status,
    fetchedAt: r.fetchedAt,
    depth: r.depth,
    contentType: r.contentType,
    contentHash: r.contentHash,
    bytes: r.bytes,
    durationMs: r.durationMs,
    noindex: r.noindex === true,
    canonicalUrl: r.canonicalUrl ?? null,
    key: r.key ?? null,
    trap: r.trap ?? null,
  };
  if (!r.items) return [{ ...base, item: 0, fields: jsonbText(r.fields) }];
  return r.items.map((fields, item) => ({ ...base, item, fields: jsonbText({ ...r.fields, ...fields }) }));
}

/** jsonb refuses the NUL character, which a page may well contain: it is dropped. */
function jsonbText(value: unknown): string {
  return JSON.stringify(value).replace(/(?<!\\)((?:\\\\)*)\\u0000/g, '$1');
}

export function quoteTable(table: string): string {
  return table
    .split('.')
    .map((p) => `"${p.replace(/"/g, '""')}"`)
    .join('.');
}

export function tableDdl(table: string): string[] {
  const q = quoteTable(table);
  const base = table.split('.').pop() ?? table;
  return [
    `CREATE TABLE IF NOT EXISTS ${q} (
      url text NOT NULL,
      record_key text NOT NULL,
      item integer NOT NULL,
      job_id text NOT NULL,
      task_id text NOT NULL,
      generation integer NOT NULL,
      final_url text NOT NULL,
      status integer NOT NULL,
      fetched_at timestamptz NOT NULL,
      depth integer NOT NULL,
      content_type text NOT NULL,
      content_hash text NOT NULL,
      bytes bigint NOT NULL,
      duration_ms integer NOT NULL,
      fields jsonb NOT NULL,
      written_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (url, record_key, item)
    )`,
    // Columns added after the first release: a table made by an older crawld gets them too.
    `ALTER TABLE ${q} ADD COLUMN IF NOT EXISTS noindex boolean NOT NULL DEFAULT false`,
    `ALTER TABLE ${q} ADD COLUMN IF NOT EXISTS canonical_url text`,
    `ALTER TABLE ${q} ADD COLUMN IF NOT EXISTS key text`,
    `ALTER TABLE ${q} ADD COLUMN IF NOT EXISTS trap text`,
    // recover() looks records up by key alone.
    `CREATE INDEX IF NOT EXISTS "${`${base}_record_key_idx`.slice(0, 63)}" ON ${q} (record_key)`,
  ];
}

/** SQLSTATE classes worth retrying: the statement may well succeed later as it is. */
const TRANSIENT_CLASSES = ['08', '53', '57P', '58'];
const TRANSIENT_CODES = new Set(['40001', '40P01', '55P03', '57014']);

/**
 * Connection failures carry no SQLSTATE and are transient (a TypeError is not); otherwise the
 * classes above, serialization failure, deadlock, lock and statement timeouts.
 */
export function isTransientPgError(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return true;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) {
    return /connect|terminat|timeout|socket|closed|ended/i.test(String((err as Error).message));
  }
  return TRANSIENT_CODES.has(code) || TRANSIENT_CLASSES.some((c) => code.startsWith(c));
}

/** The error's code and message, never the connection string (it may hold a password). */
export function describePgError(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return `${e.code ? `${e.code} ` : ''}${e.message ?? String(err)}`;
}
