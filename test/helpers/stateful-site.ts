/**
 * A small site with the seven behaviours of real shops and portals that a stateless crawler
 * misses. From `/` a browser reaches seven target pages,
 * each titled `target: NAME`:
 * 1. cookie wall: `/item` redirects to `/gate?next=/item` until the `consent` cookie is sent;
 *    the gate sets it and redirects back;
 * 2. session cookie: `/session/a` sets `sid` (Path=/session) and links to `/session/b`, which
 *    answers 403 to a client that does not send a sid the site issued;
 * 3. meta refresh: `/moved` is a stub whose `<meta http-equiv="refresh">` points at `/new`;
 * 4. `<area href>` of an image map, 5. `<iframe src>`;
 * 6. `<base href>`: `/docs/index` resolves `page` against `/docs/v2/`;
 * 7. a link to an unescaped non-ASCII path (`/café`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export const TARGETS = ['item', 'session', 'refresh', 'area', 'iframe', 'base', 'unicode'] as const;
export type Target = (typeof TARGETS)[number];

/** Where each target is, as its record's `finalUrl` path says. */
export const TARGET_PATHS: Readonly<Record<Target, string>> = {
  item: '/item',
  session: '/session/b',
  refresh: '/new',
  area: '/mapped',
  iframe: '/framed',
  base: '/docs/v2/page',
  unicode: '/caf%C3%A9',
};

export interface StatefulSite {
  readonly handler: (req: IncomingMessage, res: ServerResponse) => void;
  /** Session ids the site issued (the secrets a test looks for in logs and records). */
  readonly issued: readonly string[];
  /** Cookie headers received, by path. */
  readonly cookiesSeen: ReadonlyMap<string, string[]>;
}

const page = (title: string, body = '') =>
  `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

export function statefulSite(): StatefulSite {
  const issued: string[] = [];
  const cookiesSeen = new Map<string, string[]>();
  const send = (res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
    res.end(html);
  };
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://site');
    const cookie = req.headers.cookie ?? '';
    const seen = cookiesSeen.get(url.pathname) ?? [];
    seen.push(cookie);
    cookiesSeen.set(url.pathname, seen);
    switch (url.pathname) {
      case '/robots.txt':
        return send(res, 404, '');
      case '/':
        return send(
          res,
          200,
          page(
            'home',
            '<a href="/item">item</a> <a href="/session/a">account</a> <a href="/moved">old page</a>' +
              '<img src="/map.png" usemap="#m"><map name="m"><area shape="rect" coords="0,0,10,10" href="/mapped"></map>' +
              '<iframe src="/framed"></iframe> <a href="/docs/index">docs</a> <a href="/café">café</a>',
          ),
        );
      case '/item':
        if (!/(^|;\s*)consent=yes(;|$)/.test(cookie)) {
          res.writeHead(302, { location: '/gate?next=/item' });
          return res.end();
        }
        return send(res, 200, page('target: item'));
      case '/gate':
        res.writeHead(302, {
          location: url.searchParams.get('next') ?? '/',
          'set-cookie': 'consent=yes; Path=/; Max-Age=86400; SameSite=Lax',
        });
        return res.end();
      case '/session/a': {
        const sid = `S${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
        issued.push(sid);
        return send(res, 200, page('account', '<a href="/session/b">orders</a>'), {
          'set-cookie': `sid=${sid}; Path=/session; HttpOnly`,
        });
      }
      case '/session/b': {
        const sid = /(?:^|;\s*)sid=([^;]+)/.exec(cookie)?.[1];
        if (sid === undefined || !issued.includes(sid)) return send(res, 403, page('log in first'));
        return send(res, 200, page('target: session'));
      }
      case '/moved':
        return send(
          res,
          200,
          page('moved', '<meta http-equiv="refresh" content="0; url=/new">This page moved.'),
        );
      case '/new':
        return send(res, 200, page('target: refresh'));
      case '/mapped':
        return send(res, 200, page('target: area'));
      case '/framed':
        return send(res, 200, page('target: iframe'));
      case '/docs/index':
        return send(
          res,
          200,
          '<!doctype html><html><head><title>docs</title><base href="/docs/v2/"></head><body><a href="page">page</a></body></html>',
        );
      case '/docs/v2/page':
        return send(res, 200, page('target: base'));
      case '/caf%C3%A9':
        return send(res, 200, page('target: unicode'));
      case '/map.png':
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end();
      default:
        return send(res, 404, page('not found'));
    }
  };
  return { handler, issued, cookiesSeen };
}

/** Targets reached in a results file's records: a record with the target's title. */
export function targetsReached(records: readonly Record<string, unknown>[]): Target[] {
  const titles = new Set(
    records
      .map((r) => (r.fields as { title?: unknown } | undefined)?.title)
      .filter((t) => typeof t === 'string'),
  );
  return TARGETS.filter((t) => titles.has(`target: ${t}`));
}
