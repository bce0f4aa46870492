/**
 * The Redis frontier's scripts, composed from the Lua files of lua/ (one script or shared
 * fragment per file; each file's opening --[[ ]] block documents it: KEYS, ARGV, reply). This
 * is the one place that says which fragments make which script:
 *
 * - prelude.lua: the primitives of every script but PUBLISH (records, buckets, pend, take,
 *   snapshot, the index marks);
 * - apply.lua: a snapshot applied to an index bucket (PUBLISH; bump() for settle.lua);
 * - settle.lua: the index kept by deltas on one Redis (BATCH, TAKE, ENQUEUE_MANY);
 * - recover.lua (TAKE), withq.lua (ENQUEUE_MANY);
 * - the host operations (enqueue, peek, lease, ack, retry, dead, extend, redrive): each a host
 *   script of its own after the prelude (Cluster) and an operation of BATCH.
 *
 * A fragment enters a script as a line break then its text (its documentation block left
 * out), which is exactly how the scripts were written when they were TypeScript strings: the
 * scripts, and so their SHA-1s (EVALSHA), did not change when they moved into files.
 */
import { luaScript } from '../../redis/lua-files.js';
import { defineScripts, type RedisLike, type ScriptDef } from '../../redis/redis-client.js';

/** The host operations a BATCH call can carry, by their index in it (batch.lua's ops table). */
export const BATCH_OPS = {
  enqueue: 1,
  peek: 2,
  lease: 3,
  ack: 4,
  retry: 5,
  dead: 6,
  redrive: 7,
  extend: 8,
} as const satisfies Record<string, number>;
export type BatchOp = keyof typeof BATCH_OPS;

/** A Lua file of lua/: its script text, after its documentation block. */
function body(name: string): string {
  return luaScript(`adapters/frontier/redis/lua/${name}`);
}

/** A fragment as scripts join it: a line break, then its text. */
export function fragment(name: string): string {
  return `\n${body(name)}`;
}

/** Puts `text` in place of the line `marker` of a script (exactly one). */
function insert(script: string, marker: string, text: string): string {
  const parts = script.split(`\n${marker}\n`);
  if (parts.length !== 2) throw new Error(`expected one line ${marker} in a script`);
  return `${parts[0]}\n${text}\n${parts[1]}`;
}

function compose() {
  const prelude = fragment('prelude');
  const apply = fragment('apply');
  const settle = fragment('settle');
  /** A host script (Cluster): the six keys of one host (keys.ts hostList), one operation. */
  const host = (name: string): ScriptDef => ({ numberOfKeys: 6, lua: prelude + fragment(name) });
  const ops = (Object.keys(BATCH_OPS) as BatchOp[])
    .map((op) => `ops[${BATCH_OPS[op]}] = function(ARGV)\n${fragment(op)}\nend`)
    .join('\n');
  return {
    crawldEnqueue: host('enqueue'),
    crawldPeek: host('peek'),
    crawldLease: host('lease'),
    crawldAck: host('ack'),
    crawldRetry: host('retry'),
    crawldDead: host('dead'),
    crawldRedrive: host('redrive'),
    crawldListLeased: host('list-leased'),
    crawldListDead: host('list-dead'),
    // The one script whose text has no line break of its own.
    crawldSnapshot: { numberOfKeys: 6, lua: prelude + body('snapshot').trimEnd() },
    crawldPublish: { numberOfKeys: 6, lua: apply + fragment('publish') },
    // Keys: one per operation carried, then the index's: the key count is the call's first argument.
    crawldBatch: { lua: prelude + apply + settle + insert(fragment('batch'), '--@ops', ops) },
    crawldEnqueueMany: {
      numberOfKeys: 9,
      lua:
        prelude +
        apply +
        settle +
        fragment('withq') +
        insert(fragment('enqueue-many'), '--@enqueue', fragment('enqueue')),
    },
    crawldTake: { lua: prelude + apply + settle + fragment('recover') + fragment('take') },
    crawldRepair: { lua: prelude + fragment('repair') },
    crawldListLeasedAll: { numberOfKeys: 1, lua: prelude + fragment('list-leased-all') },
    crawldMigrate: { numberOfKeys: 6, lua: prelude + fragment('migrate') },
    crawldLayoutCheck: { numberOfKeys: 2, lua: fragment('layout-check') },
  } satisfies Record<string, ScriptDef>;
}

export type ScriptName = keyof ReturnType<typeof compose>;

let scripts: Readonly<Record<ScriptName, ScriptDef>> | undefined;

/** Every script of the frontier by the command name it is defined under (read and composed once). */
export function frontierScripts(): Readonly<Record<ScriptName, ScriptDef>> {
  scripts ??= compose();
  return scripts;
}

/** Registers every frontier script once per client. */
export function defineFrontierScripts(client: RedisLike): void {
  defineScripts(client, frontierScripts());
}
