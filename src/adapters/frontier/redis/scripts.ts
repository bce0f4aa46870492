/**
 * The Redis frontier's scripts, composed from lua/ (each file's --[[ ]] block documents it):
 * prelude.lua (primitives of all but PUBLISH), apply.lua (a snapshot into an index bucket),
 * settle.lua (the index by deltas, one Redis), and each host operation, a host script of its own
 * (Cluster) and an operation of BATCH. Fragments join as a line break then their text.
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

/** `local NAME, ... = 1, ...` lines of numbers only: the constants inlineConstants replaces. */
const CONSTANT_LINE = /^local ([A-Z][A-Z_]*(?:, [A-Z][A-Z_]*)*) = (\d+(?:, \d+)*)\n/gm;

/**
 * The prelude's number constants (record field positions, SEQ, ...) written as literals: a
 * script runs its whole text each call, and each function using a constant local captures it
 * as an upvalue (a walk of the open upvalues each time).
 */
function inlineConstants(prelude: string): { text: string; values: Map<string, string> } {
  const values = new Map<string, string>();
  const text = prelude.replace(CONSTANT_LINE, (_line, names: string, nums: string) => {
    const n = nums.split(', ');
    for (const [i, name] of names.split(', ').entries()) values.set(name, n[i]!);
    return '';
  });
  return { text, values };
}

function withConstants(lua: string, values: ReadonlyMap<string, string>): string {
  if (values.size === 0) return lua;
  const names = new RegExp(`\\b(${[...values.keys()].join('|')})\\b`, 'g');
  return lua.replace(names, (name) => values.get(name)!);
}

/** A Lua file's text as the composed scripts hold it: the prelude's constants inlined. */
export function asComposed(lua: string): string {
  const { values } = inlineConstants(fragment('prelude'));
  return withConstants(inlineConstants(lua).text, values);
}

function compose() {
  const inlined = inlineConstants(fragment('prelude'));
  const prelude = inlined.text;
  const apply = fragment('apply');
  const settle = fragment('settle');
  /** A host script (Cluster): the six keys of one host (keys.ts hostList), one operation. */
  const host = (name: string): ScriptDef => ({ numberOfKeys: 6, lua: prelude + fragment(name) });
  const ops = (Object.keys(BATCH_OPS) as BatchOp[])
    .map((op) => `ops[${BATCH_OPS[op]}] = function(ARGV)\n${fragment(op)}\nend`)
    .join('\n');
  const defs = {
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
  const out = {} as Record<keyof typeof defs, ScriptDef>;
  for (const [name, def] of Object.entries(defs))
    out[name as keyof typeof defs] = { ...def, lua: withConstants(def.lua, inlined.values) };
  return out;
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
