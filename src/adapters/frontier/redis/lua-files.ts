/**
 * The text of the Redis frontier's Lua files (lua/NAME.lua beside this module), by name.
 *
 * Where it comes from depends on how crawld runs, the text never: vitest runs the sources and
 * reads src/.../lua/; the tsc output (dist/src/..., which tests and benches import) reads the
 * copy that scripts/bundle.mjs puts beside it; the bundle (dist/crawld.mjs) reads no file:
 * scripts/bundle.mjs hands every file's text to esbuild's `define` as CRAWLD_LUA_FILES.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Every lua/*.lua file's text by name, in the bundle only (esbuild's define). */
declare const CRAWLD_LUA_FILES: Readonly<Record<string, string>> | undefined;

export function luaFile(name: string): string {
  if (typeof CRAWLD_LUA_FILES !== 'undefined') {
    const text = CRAWLD_LUA_FILES[name];
    if (text === undefined) throw new Error(`no Lua file ${name}.lua in this bundle`);
    return text;
  }
  const url = new URL(`./lua/${name}.lua`, import.meta.url);
  try {
    return readFileSync(url, 'utf8');
  } catch (err) {
    throw new Error(
      `Lua file ${fileURLToPath(url)} missing: \`npm run build\` copies lua/*.lua beside the compiled modules`,
      { cause: err },
    );
  }
}
