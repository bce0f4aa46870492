import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countLines, startCli, tempDir, useSiteCli } from '../helpers/cli.js';
import { pause, waitFor } from '../helpers/wait.js';

/** utime + stime of a process in clock ticks (USER_HZ, 100 on Linux). */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * A daemon with nothing to do must sleep: no polling loop, no timer spinning on an empty
 * frontier. Measured as CPU time the process uses while idle, which a busy-wait would
 * drive to a full core (100 ticks per second).
 */
describe.runIf(process.platform === 'linux')('idle daemon', () => {
  const site = useSiteCli(['--pages', '200']);

  it('uses almost no CPU once the crawl is done and it waits for work', async () => {
    const dir = tempDir();
    const daemon = startCli([
      'crawl',
      `${site.origin}/`,
      '--data-dir',
      dir,
      '--allow-private-networks',
      '--http-port',
      '0',
    ]);
    try {
      await waitFor(() => countLines(join(dir, 'results.jsonl')) >= 200, {
        what: '200 pages',
        deadlineMs: 30_000,
      });
      expect(daemon.child.exitCode).toBeNull();
      const pid = daemon.child.pid!;
      // The tail of the crawl (flushes, last timers) done: a check period with at most a tick of
      // CPU. A daemon that never goes quiet fails here, by the deadline.
      let last = cpuTicks(pid);
      await waitFor(
        () => {
          const now = cpuTicks(pid);
          const quiet = now - last <= 1;
          last = now;
          return quiet;
        },
        { what: 'the daemon to go quiet after the crawl', every: 500 },
      );
      const before = cpuTicks(pid);
      const windowMs = 4000;
      await pause(windowMs, 'the measured window: the CPU a daemon uses while it waits for work');
      const used = cpuTicks(pid) - before;
      // 20 ticks = 200 ms of CPU in 4 s (5% of a core): room for GC and the metrics
      // collectors, far below a busy-wait (400 ticks) or a 1 ms polling timer.
      expect(used).toBeLessThanOrEqual(20);
      expect(countLines(join(dir, 'results.jsonl'))).toBe(200);
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
  }, 60_000);
});
