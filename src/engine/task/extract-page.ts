import { HtmlTooDeepError } from '../../core/errors.js';
import type { Extraction } from '../../ports/extractor.js';
import type { FetchResponse } from '../../ports/fetcher.js';
import type { JobRuntime } from '../job/job-runtime.js';

/** The page's fields and links; a too-deep page comes back as its error, to be skipped. */
export function extractPage(job: JobRuntime, res: FetchResponse): Extraction | HtmlTooDeepError {
  try {
    return job.extractor.extract({
      url: res.url,
      contentType: res.contentType,
      contentTypeHeader: res.headers['content-type'],
      body: res.body,
      ...(job.robotsMeta ? { robotsNames: ['robots', job.robotsToken ?? 'crawld'] } : {}),
    });
  } catch (err) {
    if (err instanceof HtmlTooDeepError) return err;
    // An extractor bug must not take the daemon down: record the page without fields.
    return { fields: {}, links: [], errors: [`extractor: ${String(err)}`] };
  }
}
