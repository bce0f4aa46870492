// Preloaded into the crawld process by bench/memory.mjs (node --expose-gc --import THIS):
// every second, a full collection, then the heap that survived it (the live data) on stderr.
// Forced collections cost some CPU; this is for measuring memory, not speed.
const everyMs = Number(process.env.LIVE_HEAP_SAMPLE_MS ?? 1000);
setInterval(() => {
  globalThis.gc();
  const { heapUsed, external, arrayBuffers } = process.memoryUsage();
  process.stderr.write(
    `LIVEHEAP ${JSON.stringify({ at: performance.now(), heapUsed, external, arrayBuffers })}\n`,
  );
}, everyMs).unref();
