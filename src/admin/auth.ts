import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { RequestHandler } from 'express';
import type { CrawldConfig } from '../config/config.js';
import { ConfigError } from '../core/errors.js';

/** Same floor as the config schema puts on a literal http.adminToken. */
const MIN_TOKEN_LENGTH = 16;

/**
 * Resolved once at start-up by the composition root, so the routes never read config, files
 * or the environment themselves. Undefined: none configured.
 * @throws ConfigError when the token file is unreadable or too short, or both are set.
 */
export function resolveAdminToken(http: CrawldConfig['http']): string | undefined {
  if (http.adminToken !== undefined && http.adminTokenFile !== undefined) {
    // Two sources would leave the operator guessing which one is live.
    throw new ConfigError(['http: set http.adminToken or http.adminTokenFile, not both']);
  }
  if (http.adminTokenFile === undefined) return http.adminToken;
  let token: string;
  try {
    token = readFileSync(http.adminTokenFile, 'utf8').trim();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new ConfigError([`http.adminTokenFile: cannot read ${http.adminTokenFile} (${code})`]);
  }
  if (token.length < MIN_TOKEN_LENGTH) {
    // The file's content is a secret: say how long it must be, never what it holds.
    throw new ConfigError([`http.adminTokenFile: the token must be at least ${MIN_TOKEN_LENGTH} characters`]);
  }
  return token;
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/** Any visible characters: a token from a file need not stick to RFC 6750's b64token set. */
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** A fixed token, or a function for a token that a config reload may replace. */
export type AdminTokenSource = string | undefined | (() => string | undefined);

/**
 * 403 without a token (the API is off, not merely locked), 401 with an RFC 6750 challenge when it
 * is missing or wrong; before body parsing, so an unauthenticated client cannot make us parse.
 */
export function requireAdminToken(source: AdminTokenSource): RequestHandler {
  const current = typeof source === 'function' ? source : () => source;
  return (req, res, next) => {
    const token = current();
    if (token === undefined) {
      res.status(403).json({ error: 'admin API disabled: set http.adminToken or http.adminTokenFile' });
      return;
    }
    const header = req.get('authorization');
    const given = header === undefined ? undefined : BEARER.exec(header)?.[1];
    if (given === undefined) {
      res.set('WWW-Authenticate', 'Bearer realm="crawld"');
      res.status(401).json({ error: 'missing bearer token' });
      return;
    }
    // Constant time: hashing both sides gives timingSafeEqual the equal-length buffers it
    // requires and hides the expected token's length as well as its content.
    if (!timingSafeEqual(digest(token), digest(given))) {
      res.set('WWW-Authenticate', 'Bearer realm="crawld", error="invalid_token"');
      res.status(401).json({ error: 'invalid token' });
      return;
    }
    next();
  };
}
