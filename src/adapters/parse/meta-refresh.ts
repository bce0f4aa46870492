/**
 * `<meta http-equiv="refresh" content="0; url=/new">` in an HTML body, as a browser with
 * scripting on finds it: the first such element of the document's head whose content parses
 * (core/refresh.ts), not inside `<noscript>` (raw text when scripts run; Scrapy skips it too)
 * or `<template>` (not part of the document).
 */
import { Parser } from 'htmlparser2';
import { MAX_HTML_DEPTH } from '../../core/html-depth.js';
import { parseRefresh, type Refresh } from '../../core/refresh.js';
import { decodeHtml } from './charset.js';
import { FastTokenizer } from './fast-tokenizer.js';

/** Cheap pre-check on the bytes: pages without the word skip the parse (nearly all of them). */
const MARKS = [Buffer.from('efresh'), Buffer.from('EFRESH')];
const BODY_MARKS = [Buffer.from('<body'), Buffer.from('<BODY')];
/** Where the head is looked for, and how much of a page without one is searched. */
const HEAD_SCAN_BYTES = 64 * 1024;

/**
 * The bytes that may hold the refresh: the document's head (up to its `<body`), or its first
 * HEAD_SCAN_BYTES when it has no body tag there. Pages and servers put the pragma in the head;
 * Scrapy reads only a page's first 4 KB for it. Searching the whole body of every page was
 * ~2 % of a crawl's CPU.
 */
function headOf(body: Buffer): Buffer {
  const window = body.subarray(0, HEAD_SCAN_BYTES);
  let end = window.length;
  for (const m of BODY_MARKS) {
    const at = window.indexOf(m);
    if (at >= 0 && at < end) end = at;
  }
  return window.subarray(0, end);
}
const HIDING = new Set(['noscript', 'template']);

/** Stops the parser once the answer is known (found, or nested too deep to look further). */
const STOP = Symbol('stop');

export function findMetaRefresh(body: Buffer, contentTypeHeader: string | undefined): Refresh | undefined {
  const head = headOf(body);
  if (!MARKS.some((m) => head.includes(m))) return undefined;
  let found: Refresh | undefined;
  let depth = 0;
  let hidden = 0;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (++depth > MAX_HTML_DEPTH) throw STOP;
        if (HIDING.has(name)) hidden++;
        if (name !== 'meta' || hidden > 0) return;
        if ((attribs['http-equiv'] ?? '').trim().toLowerCase() !== 'refresh') return;
        const content = attribs.content;
        if (content === undefined || content === '') return;
        found = parseRefresh(content);
        if (found) throw STOP;
      },
      onclosetag(name) {
        depth--;
        if (HIDING.has(name) && hidden > 0) hidden--;
      },
    },
    { Tokenizer: FastTokenizer },
  );
  try {
    parser.end(decodeHtml(head, contentTypeHeader).text);
  } catch (err) {
    if (err !== STOP) throw err;
  }
  return found;
}
