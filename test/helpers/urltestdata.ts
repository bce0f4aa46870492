/**
 * The WHATWG URL test data (web-platform-tests' urltestdata.json, test/fixtures/wpt/): each case
 * an input, a base and what the standard parses them to. Node's own URL parser (ada) lags the
 * data in a few cases; those are listed here so a test can tell crawld's deviation from Node's.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export interface UrlTestCase {
  readonly input: string;
  readonly base: string | null;
  readonly failure?: boolean;
  readonly href?: string;
  readonly protocol?: string;
  readonly username?: string;
  readonly password?: string;
  readonly host?: string;
  readonly pathname?: string;
  readonly search?: string;
  readonly hash?: string;
}

export const URLTESTDATA = resolve(import.meta.dirname, '../fixtures/wpt/urltestdata.json');

/** Every test object of the file (its comment strings dropped). */
export function urlTestCases(): UrlTestCase[] {
  const data = JSON.parse(readFileSync(URLTESTDATA, 'utf8')) as unknown[];
  return data.filter((c): c is UrlTestCase => typeof c === 'object' && c !== null);
}

/**
 * Inputs Node's URL parser reads otherwise than the data says, on Node 20.20 (newer Node may
 * agree with more of them: tests require the deviations to be a subset of this list). None of
 * them is crawld's: they are the parser's own (`xn--` labels that are not valid punycode, which
 * the standard now accepts; a `^` in the path of a non-special or ws URL; spaces before an
 * opaque path's query or fragment).
 */
export const NODE_URL_DEVIATIONS: ReadonlySet<string> = new Set([
  'non-special:opaque  ?hi',
  'non-special:opaque  #hi',
  'non-special:opaque \t\t  \t#hi',
  'non-special:opaque \t\t  #hi',
  'non-special:opaque\t\t  \r #hi',
  'http://a.b.c.xn--pokxncvks',
  'http://10.0.0.xn--pokxncvks',
  'http://a.b.c.XN--pokxncvks',
  'http://a.b.c.Xn--pokxncvks',
  'http://10.0.0.XN--pokxncvks',
  'http://10.0.0.xN--pokxncvks',
  'file://xn--/p',
  'foo://host/ !"$%&\'()*+,-./:;<=>@[\\]^_`{|}~',
  'wss://host/ !"$%&\'()*+,-./:;<=>@[\\]^_`{|}~',
  'https://xn--/',
]);

/** What Node's parser gives for a case: its href, or undefined when it fails. */
export function nodeHref(c: Pick<UrlTestCase, 'input' | 'base'>): string | undefined {
  try {
    return (c.base === null ? new URL(c.input) : new URL(c.input, c.base)).href;
  } catch {
    return undefined;
  }
}

/** Whether Node's parser gives what the standard says for this case. */
export function nodeAgrees(c: UrlTestCase): boolean {
  return nodeHref(c) === (c.failure ? undefined : c.href);
}
