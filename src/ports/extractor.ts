export interface ExtractedLink {
  /** Absolute URL resolved against the page URL (not yet normalised or scope-checked). */
  readonly url: string;
  /** Priority from the follow rule that found it. */
  readonly priority: number;
  /** Max depth allowed by that rule, if it sets one. */
  readonly maxDepth?: number;
}

export interface Extraction {
  readonly fields: Record<string, unknown>;
  /** Records per element of an array (JSON rules with `items`); each is one row in a table sink. */
  readonly items?: Record<string, unknown>[];
  readonly links: ExtractedLink[];
  /** Field-level problems (bad regex match, missing required field); the page is still a result. */
  readonly errors: string[];
  /** The character encoding the body was decoded with (WHATWG name, lower case), when it was text. */
  readonly encoding?: string;
  /** The page declared a charset the Encoding standard does not know: decoded with the default. */
  readonly encodingFallback?: boolean;
  /** The content of each `<meta name>` named in ExtractInput.robotsNames, in document order. */
  readonly robotsMeta?: readonly string[];
  /** The first `<link rel="canonical" href>`, resolved against the document's base URL. */
  readonly canonicalUrl?: string;
}

export interface ExtractInput {
  readonly url: string;
  /** Media type without parameters, lower case. */
  readonly contentType: string;
  /** The Content-Type header as sent (its charset parameter decides the encoding). */
  readonly contentTypeHeader?: string;
  readonly body: Buffer;
  /** Lower-case `<meta name>` values whose content is robots directives ('robots', crawld's token). */
  readonly robotsNames?: readonly string[];
}

/** Turns one fetched body into fields and links, according to rules fixed at construction. */
export interface Extractor {
  extract(input: ExtractInput): Extraction;
}
