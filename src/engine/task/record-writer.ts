/**
 * Writes one page's record to its job's sinks, once per sink across a crash: a sink that
 * failed part-way leaves the sinks already written marked in PartialRecords.
 */
import type { Task } from '../../ports/frontier.js';
import { type ResultRecord, recordKey } from '../../ports/sink.js';
import type { TaskRunnerDeps } from './task-context.js';

export async function writeRecord(deps: TaskRunnerDeps, task: Task, record: ResultRecord): Promise<void> {
  const key = recordKey(record);
  for (const sink of deps.sinksFor?.(task.jobId) ?? deps.sinks) {
    if (deps.partial?.holds(key, sink)) continue;
    try {
      await sink.write(record);
    } catch (err) {
      // The task comes back when its lease expires; the sinks written so far are not
      // written again then. Sinks after this one were not reached and hold nothing.
      for (const s of deps.sinksFor?.(task.jobId) ?? deps.sinks) {
        if (s === sink) break;
        deps.partial?.add(key, s);
      }
      throw err;
    }
    deps.events.emit('sinkWrite', { sink: sink.name, records: 1 });
  }
  deps.partial?.done(key);
}
