export interface ExtractedLink {
  /** Resolved, not yet normalised or scope-checked. */
  readonly url: string;
  readonly priority: number;
  readonly maxDepth?: number;
}

export interface Extraction {
  readonly fields: Record<string, unknown>;
  /** One row each in a table sink. */
  readonly items?: Record<string, unknown>[];
  readonly links: ExtractedLink[];
  /** The page is still a result. */
  readonly errors: string[];
  /** WHATWG name, lower case. */
  readonly encoding?: string;
  readonly encodingFallback?: boolean;
  readonly robotsMeta?: readonly string[];
  readonly canonicalUrl?: string;
}

export interface ExtractInput {
  readonly url: string;
  readonly contentType: string;
  /** Its charset decides the encoding. */
  readonly contentTypeHeader?: string;
  readonly body: Buffer;
  readonly robotsNames?: readonly string[];
}

export interface Extractor {
  extract(input: ExtractInput): Extraction;
}
