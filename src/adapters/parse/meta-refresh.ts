/**
 * The meta refresh a browser with scripting finds: the first that parses, never inside
 * `<noscript>` (raw text when scripts run) or `<template>`.
 */
import { Parser } from 'htmlparser2';
import { MAX_HTML_DEPTH } from '../../core/html-depth.js';
import { parseRefresh, type Refresh } from '../../core/refresh.js';
import { decodeHtml } from './charset.js';
import { FastTokenizer } from './fast-tokenizer.js';

/** Cheap pre-check on the bytes: pages without the word skip the parse (nearly all of them). */
const MARKS = [Buffer.from('efresh'), Buffer.from('EFRESH')];
const HIDING = new Set(['noscript', 'template']);

const STOP = Symbol('stop');

export function findMetaRefresh(body: Buffer, contentTypeHeader: string | undefined): Refresh | undefined {
  if (!MARKS.some((m) => body.includes(m))) return undefined;
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
    parser.end(decodeHtml(body, contentTypeHeader).text);
  } catch (err) {
    if (err !== STOP) throw err;
  }
  return found;
}
