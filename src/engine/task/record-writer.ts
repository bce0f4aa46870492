/** Once per sink across a crash: after a sink failed, those written are marked in PartialRecords. */
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
