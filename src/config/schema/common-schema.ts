import { z } from 'zod';
import { proxyUrlProblem } from '../../adapters/fetch/proxy.js';
import { isHttpUrl, isValidRegex } from '../predicates.js';

export const httpUrl = z.string().refine(isHttpUrl, { message: 'must be an absolute http(s) URL' });

export const regex = z.string().refine(isValidRegex, { message: 'must be a valid regular expression' });

export const hostPattern = z
  .string()
  .regex(/^(\*|(\*\.)?[a-z0-9.-]+(:\d{1,5})?|\[[0-9a-f:.]+\](:\d{1,5})?)$/i, {
    message: "must be a hostname, '*.example.com' or '*'",
  });

/** A proxy URL; the message never repeats the value, which may carry credentials. */
const proxyUrl = z.string().superRefine((v, ctx) => {
  const problem = proxyUrlProblem(v);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
/** A proxy URL, a list to rotate through, or false: direct. */
export const proxyChoice = z.union([z.literal(false), proxyUrl, z.array(proxyUrl).min(1)]);

export const headerName = z
  .string()
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, { message: 'must be a header name' });
export const headerValue = z.string().refine((v) => !/[\r\n\0]/.test(v), { message: 'must be one line' });

export const fieldName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/);
