import { z } from 'zod';
import { DEFAULT_LINK_TAGS, LINK_TAGS, type LinkTag } from '../../core/rules.js';
import { nonNegativeInt, priority } from '../units.js';
import { fieldName, regex } from './common-schema.js';

/**
 * jobs[].extract: what a job takes from each page (fields) and which links it follows, from
 * HTML by CSS selectors (`type: html`, the default) or from JSON by paths (`type: json`, see
 * src/adapters/parse/json-extractor.ts for the path syntax).
 */

const fieldRule = z.strictObject({
  selector: z.string().min(1),
  attr: z.string().min(1).optional(),
  all: z.boolean().default(false),
  regex: regex.optional(),
  type: z.enum(['string', 'number']).default('string'),
  required: z.boolean().default(false),
});

const followRule = z.strictObject({
  selector: z.string().min(1).default('a[href]'),
  attr: z.string().min(1).default('href'),
  priority: priority.default(10),
  maxDepth: nonNegativeInt.optional(),
});

const htmlExtractSchema = z.strictObject({
  type: z.literal('html').default('html'),
  fields: z.record(fieldName, fieldRule).optional(),
  follow: z.array(followRule).default([]),
  /**
   * Follow every link of each page: `<a href>`, `<area href>`, `<iframe src>` and `<frame
   * src>` by default (`tags: [a]` follows anchors only); false: only the `follow` rules.
   */
  followAllLinks: z
    .union([
      z.literal(false),
      z.strictObject({
        priority: priority.default(10),
        tags: z
          .array(z.enum(Object.keys(LINK_TAGS) as [LinkTag, ...LinkTag[]]))
          .min(1)
          .default([...DEFAULT_LINK_TAGS]),
      }),
    ])
    .prefault({}),
});

const jsonPath = z.string().min(1);

const jsonFieldRule = z.union([
  jsonPath,
  z.strictObject({
    path: jsonPath,
    type: z.enum(['raw', 'string', 'number']).default('raw'),
    required: z.boolean().default(false),
  }),
]);

const jsonFollowRule = z
  .strictObject({
    /** Values at this path are URLs (a `next` link). */
    path: jsonPath.optional(),
    /** URL template with `{path}` placeholders filled from the body (a cursor). */
    url: z.string().min(1).optional(),
    priority: priority.default(10),
    maxDepth: nonNegativeInt.optional(),
  })
  .refine((r) => (r.path === undefined) !== (r.url === undefined), {
    message: 'give exactly one of path or url',
  });

const jsonExtractSchema = z.strictObject({
  type: z.literal('json'),
  fields: z.record(fieldName, jsonFieldRule).optional(),
  /** Path of an array: one record (table row) per element. */
  items: jsonPath.optional(),
  follow: z.array(jsonFollowRule).default([]),
});

export const extractSchema = z.discriminatedUnion('type', [htmlExtractSchema, jsonExtractSchema]);
