/** Lua files by path under src/ without `.lua`: from src/ or dist/src/, or the bundle's
 *  CRAWLD_LUA_FILES (scripts/bundle.mjs), so dist/crawld.mjs reads no file. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

declare const CRAWLD_LUA_FILES: Readonly<Record<string, string>> | undefined;

export function luaFile(path: string): string {
  if (typeof CRAWLD_LUA_FILES !== 'undefined') {
    const text = CRAWLD_LUA_FILES[path];
    if (text === undefined) throw new Error(`no Lua file ${path}.lua in this bundle`);
    return text;
  }
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

/** A Lua file's script: its text after its leading --[[ ... ]] documentation block. */
export function luaScript(path: string): string {
  const text = luaFile(path);
  if (!text.startsWith('--[[')) return text;
  const end = text.indexOf(']]\n');
  if (end < 0) throw new Error(`${path}.lua: documentation block not closed`);
  return text.slice(end + 3);
}
