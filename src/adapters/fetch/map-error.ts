/** Translates undici, node:net and DNS failures into the crawl's FetchError taxonomy. */
import {
  BodyTimeoutError,
  BodyTooLargeError,
  ConnectionError,
  ConnectTimeoutError,
  FetchError,
  HeadersTimeoutError,
  HeadersTooLargeError,
  TlsError,
  type TlsReason,
} from '../../core/errors.js';

/** OpenSSL's and Node's certificate and handshake error codes, by what they mean to a user. */
const TLS_CODES: Readonly<Record<string, TlsReason>> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'tls_untrusted',
  SELF_SIGNED_CERT_IN_CHAIN: 'tls_untrusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'tls_untrusted',
  UNABLE_TO_GET_ISSUER_CERT: 'tls_untrusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'tls_untrusted',
  CERT_UNTRUSTED: 'tls_untrusted',
  CERT_REJECTED: 'tls_untrusted',
  CERT_SIGNATURE_FAILURE: 'tls_untrusted',
  INVALID_CA: 'tls_untrusted',
  CERT_REVOKED: 'tls_untrusted',
  CERT_HAS_EXPIRED: 'tls_expired',
  CERT_NOT_YET_VALID: 'tls_expired',
  ERR_TLS_CERT_ALTNAME_INVALID: 'tls_hostname',
  HOSTNAME_MISMATCH: 'tls_hostname',
  EPROTO: 'tls_handshake',
  ERR_SSL_WRONG_VERSION_NUMBER: 'tls_handshake',
  ERR_SSL_UNSUPPORTED_PROTOCOL: 'tls_handshake',
  ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION: 'tls_handshake',
  ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE: 'tls_handshake',
  ERR_SSL_NO_PROTOCOLS_AVAILABLE: 'tls_handshake',
  ERR_TLS_HANDSHAKE_TIMEOUT: 'tls_handshake',
};

function tlsReason(code: string): TlsReason | undefined {
  return TLS_CODES[code] ?? (code.startsWith('ERR_SSL_') ? 'tls_handshake' : undefined);
}

const CONNECTION_CODES = new Set([
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NODATA',
  'EAI_NONAME',
  'ERR_STREAM_PREMATURE_CLOSE',
]);

/** Finds a FetchError we raised ourselves (e.g. from the guarded lookup) however undici wrapped it. */
function findOwn(err: unknown, depth = 0): FetchError | undefined {
  if (depth > 5 || typeof err !== 'object' || err === null) return undefined;
  if (err instanceof FetchError) return err;
  if (err instanceof AggregateError) {
    for (const e of err.errors) {
      const own = findOwn(e, depth + 1);
      if (own) return own;
    }
  }
  return findOwn((err as { cause?: unknown }).cause, depth + 1);
}

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  // Happy-eyeballs failures arrive as an AggregateError of per-address errors.
  if (err instanceof AggregateError) return err.errors.map(codeOf).find((c) => c !== undefined);
  return undefined;
}

export function toFetchError(err: unknown, url: string): FetchError {
  const own = findOwn(err);
  if (own) return own;
  const code = codeOf(err);
  const detail = err instanceof Error ? err.message : String(err);
  const msg = `${url}: ${detail}${code ? ` (${code})` : ''}`;
  const options = { cause: err };
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return new ConnectTimeoutError(msg, options);
    case 'UND_ERR_HEADERS_TIMEOUT':
      return new HeadersTimeoutError(msg, options);
    case 'UND_ERR_BODY_TIMEOUT':
      return new BodyTimeoutError(msg, options);
    case 'UND_ERR_RES_EXCEEDED_MAX_SIZE':
      return new BodyTooLargeError(msg, options);
    case 'UND_ERR_HEADERS_OVERFLOW':
      return new HeadersTooLargeError(msg, options);
  }
  const tls = code !== undefined ? tlsReason(code) : undefined;
  if (tls) return new TlsError(tls, msg, options);
  if (code !== undefined && CONNECTION_CODES.has(code)) return new ConnectionError(msg, options);
  return new FetchError(msg, options);
}
