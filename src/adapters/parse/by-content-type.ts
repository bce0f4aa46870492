import type { ExtractInput, Extraction, Extractor } from '../../ports/extractor.js';
import { isJsonContentType } from './json-extractor.js';

/**
 * An HTML job may still meet JSON responses (an API link on a page): those go to the JSON
 * extractor instead of being parsed as markup.
 */
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
