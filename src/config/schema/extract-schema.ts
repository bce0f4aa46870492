import { z } from 'zod';
import { DEFAULT_LINK_TAGS, LINK_TAGS, type LinkTag } from '../../core/rules.js';
import { nonNegativeInt, priority } from '../units.js';
import { fieldName, regex } from './common-schema.js';

/** jobs[].extract: fields and links, from HTML (CSS selectors) or JSON (adapters/parse/json-extractor.ts). */

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
    path: jsonPath.optional(),
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
  items: jsonPath.optional(),
  follow: z.array(jsonFollowRule).default([]),
});

export const extractSchema = z.discriminatedUnion('type', [htmlExtractSchema, jsonExtractSchema]);
