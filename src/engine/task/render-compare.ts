/** Did plain HTTP get what the render got: the required fields (all when none marked) and the links. */
import type { Extraction } from '../../ports/extractor.js';

/** HTTP must find at least this share of the links the rendered page has. */
export const MIN_LINK_RECALL = 0.9;

export interface RenderComparison {
  readonly agree: boolean;
  readonly missingFields: readonly string[];
  /** 1 when the rendered page has no links. */
  readonly linkRecall: number;
}

export function hasValue(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return false;
  return !(Array.isArray(v) && v.length === 0);
}

export function missingRequired(extraction: Extraction, required: readonly string[]): string[] {
  return required.filter((name) => !hasValue(extraction.fields[name]));
}

export function compareRendered(
  http: Extraction,
  rendered: Extraction,
  required: readonly string[],
): RenderComparison {
  const watched = required.length > 0 ? required : Object.keys(rendered.fields);
  const missingFields = watched.filter((f) => hasValue(rendered.fields[f]) && !hasValue(http.fields[f]));
  const renderedLinks = new Set(rendered.links.map((l) => l.url));
  let found = 0;
  for (const l of new Set(http.links.map((x) => x.url))) if (renderedLinks.has(l)) found++;
  const linkRecall = renderedLinks.size === 0 ? 1 : found / renderedLinks.size;
  return { agree: missingFields.length === 0 && linkRecall >= MIN_LINK_RECALL, missingFields, linkRecall };
}
