import type { ChangeRecord, ChangeSink } from '../../ports/page-state.js';
import { JsonlSink } from './jsonl-sink.js';

/** Change records as JSON lines (DATA_DIR/changes.jsonl by default). */
export class JsonlChangeSink implements ChangeSink {
  readonly name = 'jsonl-changes';
  readonly #file: JsonlSink;

  constructor(options: { path: string }) {
    this.#file = new JsonlSink(options);
  }

  open(): Promise<void> {
    return this.#file.open();
  }

  write(change: ChangeRecord): Promise<void> {
    return this.#file.writeJson(change);
  }

  close(): Promise<void> {
    return this.#file.close();
  }
}
