import type { RecrawlPolicy } from '../../core/recrawl-interval.js';
import type { RenderChoiceOptions } from '../../core/render-choice.js';
import type { NormaliseOptions, ScopeRules } from '../../core/rules.js';
import type { CookieJar } from '../../ports/cookie-jar.js';
import type { Extractor } from '../../ports/extractor.js';
import type { RenderRequest } from '../../ports/fetcher.js';
import type { RenderDecisions } from '../../ports/render-decisions.js';
import type { TrapGuard } from './trap-guard.js';

/** A job as the scheduler runs it: config compiled into ready objects. */
export interface JobRuntime {
  readonly id: string;
  readonly extractor: Extractor;
  readonly scope: ScopeRules;
  readonly normalise: NormaliseOptions;
  readonly recrawlIntervalMs?: number;
  /** Per-page recrawl intervals (core/recrawl-interval.ts); set with recrawlIntervalMs. */
  readonly recrawl?: RecrawlPolicy;
  /** The job's proxies (overriding the fetcher's), or false for direct. */
  readonly proxy?: readonly string[] | false;
  /** Write a record for a 304 (conditional recrawl found the page unchanged). @default true */
  readonly recordUnchanged?: boolean;
  /** Links followed from one page (document order); the rest are dropped as over_cap. */
  readonly maxLinksPerPage?: number;
  readonly detectChanges: boolean;
  readonly robots: boolean;
  /** Obey meta robots and X-Robots-Tag (nofollow, noindex). @default false */
  readonly robotsMeta?: boolean;
  /** Write no record for a noindex page (else it is marked `noindex: true`). @default false */
  readonly dropNoindex?: boolean;
  /** The robots.txt / meta product token of the job's User-Agent (lower case). */
  readonly robotsToken?: string;
  /** Request settings (job-request.ts). Header values may be secrets: never log them. @default 'GET' */
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Unset: no cookies but the request's own header. */
  readonly cookieJar?: CookieJar;
  /** Unset: plain HTTP. */
  readonly render?: RenderRequest;
  /** kind auto: how hosts are sampled and re-checked (core/render-choice.ts). */
  readonly renderChoice?: RenderChoiceOptions;
  readonly renderDecisions?: RenderDecisions;
  /** Unset: `traps: false`. */
  readonly traps?: TrapGuard;
  /** The names of the job's required fields (a page without them is incomplete). @default [] */
  readonly requiredFields?: readonly string[];
}
