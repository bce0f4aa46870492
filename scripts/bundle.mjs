// Bundles the compiled CLI (dist/src/cli.js) and its dependencies into one file, dist/crawld.mjs,
// the entry point that ships (package.json bin, Dockerfile, systemd unit).
//
// Why: Node 20's ESM loader resolves and reads each of the ~400 modules a daemon loads one by
// one; on this 2-core VM that was 0.2-0.3 s of the 0.6 s before the first request. From one
// file the first request goes out at 0.37-0.42 s instead of 0.58-0.67 s, and `crawld help`
// takes 0.42 s instead of 0.56 s (commit dbd1c71).
//
// better-sqlite3 stays outside: it loads a native addon from its own directory. Everything else
// is inside, including the modules only some runs need (ioredis, pg, express): a bundled
// module that is only imported dynamically is evaluated when first imported, whereas an
// external one would be imported, and evaluated, at start. playwright-core stays outside too: it
// reads its own files (browser protocol tables, package.json) at run time, and the browser
// fetcher imports it only when a job renders with a browser.
//
// The Redis adapters' Lua files (src/**/lua/*.lua, read by src/adapters/redis/lua-files.ts) are
// copied beside the tsc output, which tests and benches import, and put into the bundle as text
// (esbuild's define: CRAWLD_LUA_FILES, path under src/ without .lua -> text), so that
// dist/crawld.mjs reads no file of its own and runs from any directory. Both from the one
// source, at every build: neither copy can go stale.
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { build } from 'esbuild';

const luaPaths = readdirSync('src', { recursive: true })
  .map((p) => String(p).replaceAll('\\', '/'))
  .filter((p) => p.endsWith('.lua'))
  .sort();
// Stale copies (a Lua file renamed or removed) go; nothing else in those folders is touched.
for (const dir of new Set(luaPaths.map(dirname)))
  for (const f of existsSync(`dist/src/${dir}`) ? readdirSync(`dist/src/${dir}`) : [])
    if (f.endsWith('.lua')) rmSync(`dist/src/${dir}/${f}`);
for (const p of luaPaths) cpSync(`src/${p}`, `dist/src/${p}`);
const luaFiles = Object.fromEntries(
  luaPaths.map((p) => [p.slice(0, -'.lua'.length), readFileSync(`src/${p}`, 'utf8')]),
);

// The WARC writer thread's code (src/adapters/sink/warc/writer-worker.ts) goes into the bundle
// as text (CRAWLD_WARC_WRITER_JS), started with `new Worker(code, { eval: true })`: the bundle
// still reads no file of its own. CommonJS, as an eval'd thread runs it.
const writer = await build({
  entryPoints: ['dist/src/adapters/sink/warc/writer-worker.js'],
  bundle: true,
  write: false,
  platform: 'node',
  format: 'cjs',
  target: 'node20.18',
  legalComments: 'none',
  logLevel: 'warning',
});

await build({
  entryPoints: ['dist/src/cli.js'],
  outfile: 'dist/crawld.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.18',
  // esbuild: only writer-thread.ts run from its TypeScript source imports it (never the bundle).
  external: ['better-sqlite3', 'pg-native', 'playwright-core', 'esbuild'],
  define: {
    CRAWLD_LUA_FILES: JSON.stringify(luaFiles),
    CRAWLD_WARC_WRITER_JS: JSON.stringify(writer.outputFiles[0].text),
  },
  // CommonJS dependencies call require() on Node built-ins, which an ES module lacks.
  banner: {
    js: "import { createRequire as __crawldRequire } from 'node:module';\nconst require = __crawldRequire(import.meta.url);",
  },
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
});
