/** One INSERT ... SELECT FROM unnest per batch, idempotent by ON CONFLICT. */
import type pg from 'pg';
import type { PgRow } from './postgres-rows.js';

/** One multi-row statement: column arrays unnested, so the parameter count never grows. */
export async function insertRows(
  pool: pg.Pool,
  table: string,
  rows: PgRow[],
  onConflict: 'nothing' | 'update',
): Promise<void> {
  // Duplicates inside one statement would make DO UPDATE fail ("affect row a second time").
  const unique = new Map<string, PgRow>();
  for (const r of rows) unique.set(`${r.url}\u0000${r.recordKey}\u0000${r.item}`, r);
  const list = [...unique.values()];
  const col = <K extends keyof PgRow>(k: K) => list.map((r) => r[k]);
  const conflict =
    onConflict === 'update'
      ? `DO UPDATE SET final_url = EXCLUDED.final_url, status = EXCLUDED.status,
         fetched_at = EXCLUDED.fetched_at, content_type = EXCLUDED.content_type,
         content_hash = EXCLUDED.content_hash, bytes = EXCLUDED.bytes,
         duration_ms = EXCLUDED.duration_ms, fields = EXCLUDED.fields, noindex = EXCLUDED.noindex,
         canonical_url = EXCLUDED.canonical_url, key = EXCLUDED.key, trap = EXCLUDED.trap,
         written_at = now()`
      : 'DO NOTHING';
  await pool.query(
    `INSERT INTO ${table} (url, record_key, item, job_id, task_id, generation, final_url, status,
       fetched_at, depth, content_type, content_hash, bytes, duration_ms, fields, noindex, canonical_url,
       key, trap)
     SELECT u.url, u.record_key, u.item, u.job_id, u.task_id, u.generation, u.final_url, u.status,
       u.fetched_at, u.depth, u.content_type, u.content_hash, u.bytes, u.duration_ms, u.fields::jsonb,
       u.noindex, u.canonical_url, u.key, u.trap
     FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[], $6::int[], $7::text[],
       $8::int[], $9::timestamptz[], $10::int[], $11::text[], $12::text[], $13::bigint[], $14::int[],
       $15::text[], $16::boolean[], $17::text[], $18::text[], $19::text[])
       AS u(url, record_key, item, job_id, task_id, generation, final_url, status, fetched_at, depth,
         content_type, content_hash, bytes, duration_ms, fields, noindex, canonical_url, key, trap)
     ON CONFLICT (url, record_key, item) ${conflict}`,
    [
      col('url'),
      col('recordKey'),
      col('item'),
      col('jobId'),
      col('taskId'),
      col('generation'),
      col('finalUrl'),
      col('status'),
      col('fetchedAt'),
      col('depth'),
      col('contentType'),
      col('contentHash'),
      col('bytes'),
      col('durationMs'),
      col('fields'),
      col('noindex'),
      col('canonicalUrl'),
      col('key'),
      col('trap'),
    ],
  );
}
