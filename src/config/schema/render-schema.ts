import { z } from 'zod';
import { RENDER_CHOICE_BOUNDS, renderChoiceDefaults } from '../../core/render-choice.js';
import { numberIn, positiveInt, positiveMs } from '../units.js';

/**
 * The browser path's options (docs/browser.md): how a job's pages are rendered (jobs[].render),
 * and the headless Chromium pool behind them (fetch.browser).
 */

/** Resource types a render may skip; a crawl reads the DOM, not pixels. */
export const BLOCKABLE_RESOURCES = ['image', 'media', 'font', 'stylesheet'] as const;

/**
 * jobs[].render: http (undici, no JavaScript), browser (headless Chromium), or auto (per host,
 * whichever gets the job's fields and links: core/render-choice.ts, docs/browser.md).
 */
export const renderSchema = z
  .strictObject({
    kind: z.enum(['http', 'browser', 'auto']).default('http'),
    /** auto: pages of a new host fetched both ways and compared before it is decided. */
    samplePages: numberIn(RENDER_CHOICE_BOUNDS.samplePages).default(renderChoiceDefaults.samplePages),
    /** auto: on a host decided http, one page in this many is also rendered and compared. */
    recheckEvery: numberIn(RENDER_CHOICE_BOUNDS.recheckEvery).default(renderChoiceDefaults.recheckEvery),
    /** The page event a render waits for before reading the DOM. */
    waitUntil: z.enum(['load', 'domcontentloaded', 'networkidle']).default('load'),
    /** Then also wait until this CSS selector matches (attached to the DOM). */
    waitForSelector: z.string().min(1).optional(),
    /** Budget of one render: document fetch, scripts, subresources and waits. */
    timeoutMs: positiveMs.default(30_000),
    blockResources: z.array(z.enum(BLOCKABLE_RESOURCES)).default([...BLOCKABLE_RESOURCES]),
  })
  .prefault({});

/** fetch.browser: the Chromium pool. */
export const browserSchema = z
  .strictObject({
    /** Chromium or Chrome binary. @default `chromium`, `chromium-browser` or `google-chrome` on PATH */
    executablePath: z.string().min(1).optional(),
    /** Pages rendered at once. @default 1 per 150 MiB of free memory, at most 4 per core (docs/browser.md) */
    maxPages: numberIn({ min: 1, max: 256, integer: true }).optional(),
    /** A browser context (cookies, cache) serves this many pages, then is closed and replaced. */
    pagesPerContext: positiveInt.default(50),
    /** The browser is restarted (after its pages finish) when its process tree's RSS passes this. */
    maxRssBytes: positiveInt.default(2_147_483_648),
  })
  .prefault({});

export type RenderConfig = z.output<typeof renderSchema>;
export type BrowserConfig = z.output<typeof browserSchema>;
