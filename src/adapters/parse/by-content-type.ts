import type { ExtractInput, Extraction, Extractor } from '../../ports/extractor.js';
import { isJsonContentType } from './json-extractor.js';

/** An HTML job may meet JSON (an API link on a page): it goes to the JSON extractor. */
export class ByContentTypeExtractor implements Extractor {
  readonly #html: Extractor;
  readonly #json: Extractor;

  constructor(html: Extractor, json: Extractor) {
    this.#html = html;
    this.#json = json;
  }

  extract(input: ExtractInput): Extraction {
    return (isJsonContentType(input.contentType) ? this.#json : this.#html).extract(input);
  }
}
