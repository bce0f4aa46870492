import { z } from 'zod';
import { RENDER_CHOICE_BOUNDS, renderChoiceDefaults } from '../../core/render-choice.js';
import { numberIn, positiveInt, positiveMs } from '../units.js';

/** The browser path's options (docs/browser.md): jobs[].render and fetch.browser's Chromium pool. */

/** Resource types a render may skip; a crawl reads the DOM, not pixels. */
export const BLOCKABLE_RESOURCES = ['image', 'media', 'font', 'stylesheet'] as const;

/** jobs[].render: auto decides per host (core/render-choice.ts). */
export const renderSchema = z
  .strictObject({
    kind: z.enum(['http', 'browser', 'auto']).default('http'),
    /** auto: pages of a new host fetched both ways and compared before it is decided. */
    samplePages: numberIn(RENDER_CHOICE_BOUNDS.samplePages).default(renderChoiceDefaults.samplePages),
    /** auto: on a host decided http, one page in this many is also rendered and compared. */
    recheckEvery: numberIn(RENDER_CHOICE_BOUNDS.recheckEvery).default(renderChoiceDefaults.recheckEvery),
    waitUntil: z.enum(['load', 'domcontentloaded', 'networkidle']).default('load'),
    waitForSelector: z.string().min(1).optional(),
    timeoutMs: positiveMs.default(30_000),
    blockResources: z.array(z.enum(BLOCKABLE_RESOURCES)).default([...BLOCKABLE_RESOURCES]),
  })
  .prefault({});

export const browserSchema = z
  .strictObject({
    /** @default `chromium`, `chromium-browser` or `google-chrome` on PATH */
    executablePath: z.string().min(1).optional(),
    /** @default 1 per 150 MiB of free memory, at most 4 per core (docs/browser.md) */
    maxPages: numberIn({ min: 1, max: 256, integer: true }).optional(),
    pagesPerContext: positiveInt.default(50),
    maxRssBytes: positiveInt.default(2_147_483_648),
  })
  .prefault({});

export type RenderConfig = z.output<typeof renderSchema>;
export type BrowserConfig = z.output<typeof browserSchema>;
