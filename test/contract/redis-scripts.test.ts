// The Redis frontier's scripts as composed from src/adapters/frontier/redis/lua/*.lua
// (scripts.ts): every file is part of a script, every script compiles in a real Redis, and the
// copy the build puts beside the tsc output (dist/src/..., which benches import) of every .lua
// file under src/ is the source.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { asComposed, frontierScripts } from '../../src/adapters/frontier/redis/scripts.js';
import { useRedis } from '../helpers/redis-server.js';

const redis = useRedis();
const SRC = resolve(import.meta.dirname, '../../src/adapters/frontier/redis/lua');
const DIST = resolve(import.meta.dirname, '../../dist/src/adapters/frontier/redis/lua');
const names = readdirSync(SRC).filter((f) => f.endsWith('.lua'));
const SRC_ROOT = resolve(import.meta.dirname, '../../src');
const DIST_ROOT = resolve(import.meta.dirname, '../../dist/src');
/** Every .lua file under src/, by its path there. */
const allLua = readdirSync(SRC_ROOT, { recursive: true })
  .map(String)
  .filter((p) => p.endsWith('.lua'));

/** A file's script text: what follows its documentation block. */
function body(file: string): string {
  const text = readFileSync(join(SRC, file), 'utf8');
  expect(text.startsWith('--[[\n'), `${file} opens with its documentation block`).toBe(true);
  return text.slice(text.indexOf(']]\n') + 3);
}

it('composes every Lua file into some script, its documentation left out', () => {
  const all = Object.values(frontierScripts()).map((s) => s.lua);
  expect(names.length).toBeGreaterThan(20);
  for (const file of names) {
    // A marker line (--@ops, --@enqueue) is replaced: each side of it is in the script.
    for (const part of body(file).split(/\n--@\w+\n/))
      expect(
        all.some((lua) => lua.includes(asComposed(part).trimEnd())),
        file,
      ).toBe(true);
  }
  for (const lua of all) expect(lua).not.toMatch(/--\[\[|--@/);
});

it('loads every script into Redis', async () => {
  for (const [name, def] of Object.entries(frontierScripts()))
    expect(await redis.admin.script('LOAD', def.lua), name).toMatch(/^[0-9a-f]{40}$/);
});

it('builds with the Lua beside the compiled modules, the same as the sources', () => {
  // Only after `npm run build`: without a build there is nothing to compare.
  if (!existsSync(join(DIST, '..', 'scripts.js'))) return;
  expect(readdirSync(DIST).sort()).toEqual([...names].sort());
  expect(allLua.length).toBeGreaterThan(names.length);
  for (const path of allLua)
    expect(readFileSync(join(DIST_ROOT, path), 'utf8'), path).toBe(
      readFileSync(join(SRC_ROOT, path), 'utf8'),
    );
});
