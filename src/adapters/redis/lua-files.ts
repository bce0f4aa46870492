/**
 * The text of the Lua files under src/ (frontier/redis/lua/, rate/lua/, shared-map/lua/), by
 * their path under src/ without `.lua`, e.g. `adapters/rate/lua/token-bucket`.
 *
 * Where it comes from depends on how crawld runs, the text never: vitest runs the sources and
 * reads src/; the tsc output (dist/src/..., which tests and benches import) reads the copy that
 * scripts/bundle.mjs puts beside it; the bundle (dist/crawld.mjs) reads no file:
 * scripts/bundle.mjs hands every file's text to esbuild's `define` as CRAWLD_LUA_FILES.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Every .lua file's text by its path under src/ without `.lua`, in the bundle only (esbuild's define). */
declare const CRAWLD_LUA_FILES: Readonly<Record<string, string>> | undefined;

export function luaFile(path: string): string {
  if (typeof CRAWLD_LUA_FILES !== 'undefined') {
    const text = CRAWLD_LUA_FILES[path];
    if (text === undefined) throw new Error(`no Lua file ${path}.lua in this bundle`);
    return text;
  }
  // This module is src/adapters/redis/lua-files.ts, or dist/src/adapters/redis/lua-files.js.
  const url = new URL(`../../${path}.lua`, import.meta.url);
  try {
    return readFileSync(url, 'utf8');
  } catch (err) {
    throw new Error(
      `Lua file ${fileURLToPath(url)} missing: \`npm run build\` copies the .lua files beside the compiled modules`,
      { cause: err },
    );
  }
}

/** A Lua file's script: its text after its documentation block (a leading --[[ ... ]] and its line break). */
export function luaScript(path: string): string {
  const text = luaFile(path);
  if (!text.startsWith('--[[')) return text;
  const end = text.indexOf(']]\n');
  if (end < 0) throw new Error(`${path}.lua: documentation block not closed`);
  return text.slice(end + 3);
}
