/**
 * The trap site's pages: a shop of real pages behind the traps of the open web (session ids,
 * an endless calendar, relative docs links, a facet grid, soft 404s). Pure: the same options
 * and counter give the same bytes.
 */
import { hash } from './demo-hash.js';

export interface TrapSiteOptions {
  /** @default 200 */
  readonly products: number;
  /** @default 10 */
  readonly perPage: number;
  /** false: the home page, the listing and the products only. @default true */
  readonly traps: boolean;
}

export const DEFAULT_TRAP_SITE: TrapSiteOptions = { products: 200, perPage: 10, traps: true };

const WORDS = (
  'amber basalt cedar delta ember fjord granite harbor indigo juniper kelp lagoon meadow nickel ' +
  'orchid pebble quartz raven saffron tundra umber violet willow xenon yarrow zephyr acorn birch ' +
  'canyon dune estuary fern glacier heath islet jade knoll lichen marsh nectar oasis prairie'
).split(' ');
const MONTHS = 'January February March April May June July August September October November December'.split(
  ' ',
);

function words(seed: number, n: number): string {
  const out: string[] = [];
  for (let k = 0; k < n; k++) out.push(WORDS[hash(seed, k) % WORDS.length] ?? 'acorn');
  return out.join(' ');
}

export function sessionId(visit: number): string {
  return (hash(visit, 1).toString(16) + hash(visit, 2).toString(16)).padEnd(16, '0');
}

function layout(title: string, body: string, o: TrapSiteOptions, visit: number): string {
  const nav = o.traps
    ? `<a href="/">Home</a> <a href="/products?page=1">Products</a> <a href="/shop">Shop</a> ` +
      `<a href="/help?sid=${sessionId(visit)}">Help</a> <a href="/events/2026/12/">Events</a> <a href="docs/">Docs</a>`
    : '<a href="/">Home</a> <a href="/products?page=1">Products</a>';
  const footer = o.traps
    ? `<a href="/help/contact;jsessionid=${sessionId(visit + 7)}">Contact</a> ` +
      `<a href="/about?visit=${sessionId(visit + 3)}">About us</a>`
    : '';
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>
<body><header><nav>${nav}</nav><p>Trap Shop: outdoor goods since 1999. Free shipping over $50, returns within 30 days.</p></header>
<main>${body}</main>
<footer><p>Trap Shop, 1 Harbor Road. Customer service Monday to Friday.</p>${footer}</footer></body></html>
`;
}

export function homePage(o: TrapSiteOptions, visit: number): string {
  const body = `<h1>Welcome to Trap Shop</h1><p>${words(1, 60)}</p>`;
  return layout('Trap Shop', body, o, visit);
}

export function listingPage(page: number, o: TrapSiteOptions, visit: number): string {
  const pages = Math.ceil(o.products / o.perPage);
  const items: string[] = [];
  for (let i = (page - 1) * o.perPage + 1; i <= Math.min(o.products, page * o.perPage); i++)
    items.push(`<li><a href="/product/${i}">${productName(i)}</a> ${price(i)}</li>`);
  const next = page < pages ? `<a href="/products?page=${page + 1}">Next</a>` : '';
  const prev = page > 1 ? `<a href="/products?page=${page - 1}">Previous</a>` : '';
  const body = `<h1>Products, page ${page} of ${pages}</h1><ul>${items.join('')}</ul>${prev} ${next}`;
  return layout(`Products - page ${page}`, body, o, visit);
}

export function productName(i: number): string {
  return `${words(hash(i, 9), 2)} ${i}`;
}

function price(i: number): string {
  return `$${(5 + (hash(i, 4) % 9000) / 100).toFixed(2)}`;
}

export function productPage(i: number, o: TrapSiteOptions, visit: number): string {
  // Reviews live on a path the server does not have: it answers 200 with its "not found" page.
  const reviews = o.traps ? `<a href="/reviews/${i}/">Reviews</a>` : '';
  const body = `<h1>${productName(i)}</h1><p class="price">${price(i)}</p><p>${words(hash(i, 5), 50)}</p>${reviews}`;
  return layout(productName(i), body, o, visit);
}

export const HELP_TOPICS = ['shipping', 'returns', 'payment', 'warranty', 'contact'];

export function helpPage(topic: string | undefined, o: TrapSiteOptions, visit: number): string {
  const links = HELP_TOPICS.map(
    (t) => `<li><a href="/help/${t}?sid=${sessionId(visit * 7 + t.length)}">${t}</a></li>`,
  );
  const text = topic === undefined ? words(77, 40) : words(hash(topic.length, 31, topic.charCodeAt(0)), 40);
  const body = `<h1>Help${topic ? `: ${topic}` : ''}</h1><p>${text}</p><ul>${links.join('')}</ul>`;
  return layout(`Help${topic ? ` - ${topic}` : ''}`, body, o, visit);
}

export function aboutPage(o: TrapSiteOptions, visit: number): string {
  return layout('About Trap Shop', `<h1>About us</h1><p>${words(55, 50)}</p>`, o, visit);
}

/** An events month: a grid of day links, no events, links to the months around it. */
export function monthPage(year: number, month: number, o: TrapSiteOptions, visit: number): string {
  const days: string[] = [];
  const n = new Date(Date.UTC(year, month, 0)).getUTCDate();
  for (let d = 1; d <= n; d++) days.push(`<a href="/events/${year}/${month}/${d}/">${d}</a>`);
  const prev = month === 1 ? [year - 1, 12] : [year, month - 1];
  const next = month === 12 ? [year + 1, 1] : [year, month + 1];
  const name = `${MONTHS[month - 1]} ${year}`;
  const body =
    `<h1>Events: ${name}</h1><table><tr><td>Mon</td><td>Tue</td><td>Wed</td><td>Thu</td><td>Fri</td><td>Sat</td><td>Sun</td></tr></table>` +
    `<p>${days.join(' ')}</p><p>No events are planned this month. Check back soon for workshops and sales.</p>` +
    `<a href="/events/${prev[0]}/${prev[1]}/">Previous month</a> <a href="/events/${next[0]}/${next[1]}/">Next month</a>`;
  return layout(`Events - ${name}`, body, o, visit);
}

export function dayPage(year: number, month: number, day: number, o: TrapSiteOptions, visit: number): string {
  const name = `${day} ${MONTHS[month - 1]} ${year}`;
  const body =
    `<h1>Events on ${name}</h1><p>No events are planned on this day. Check back soon for workshops and sales.</p>` +
    `<a href="/events/${year}/${month}/">Back to the month</a>`;
  return layout(`Events - ${name}`, body, o, visit);
}

export const DOC_PAGES = ['intro.html', 'install.html', 'faq.html'];

/** A docs page; every link is relative, and `docs/` was meant as the folder itself. */
export function docsPage(name: string | undefined, o: TrapSiteOptions): string {
  const links = DOC_PAGES.map((d) => `<li><a href="${d}">${d}</a></li>`).join('');
  const text = name === undefined ? words(101, 60) : words(hash(name.length, name.charCodeAt(0), 3), 60);
  const body = `<h1>Documentation${name ? `: ${name}` : ''}</h1><p>${text}</p><ul>${links}</ul><a href="docs/">Docs home</a>`;
  return layout(`Docs${name ? ` - ${name}` : ''}`, body, o, 0);
}

export const COLORS = ['red', 'blue', 'green', 'black', 'white'];
export const SIZES = ['s', 'm', 'l', 'xl'];
export const SORTS = ['price', 'name', 'new'];

/** The shop front: the same ten featured products under every facet, with links to every facet. */
export function shopPage(q: URLSearchParams, o: TrapSiteOptions, visit: number): string {
  const chosen = ['color', 'size', 'sort'].map((k) => q.get(k)).filter((v) => v !== null);
  const toggle = (k: string, v: string) => {
    const next = new URLSearchParams(q);
    next.set(k, v);
    return `/shop?${next.toString()}`;
  };
  const facets = [
    ...COLORS.map((c) => `<a href="${toggle('color', c)}">${c}</a>`),
    ...SIZES.map((s) => `<a href="${toggle('size', s)}">${s}</a>`),
    ...SORTS.map((s) => `<a href="${toggle('sort', s)}">sort by ${s}</a>`),
  ].join(' ');
  const featured: string[] = [];
  for (let i = 1; i <= 10; i++)
    featured.push(`<li><a href="/product/${i}">${productName(i)}</a> ${price(i)}</li>`);
  const body = `<h1>Shop${chosen.length ? `: ${chosen.join(', ')}` : ''}</h1><p>${facets}</p><ul>${featured.join('')}</ul>`;
  return layout('Shop', body, o, visit);
}

/** What the server answers, with status 200, for a path it does not have. */
export function notFoundPage(path: string, o: TrapSiteOptions, visit: number): string {
  const body =
    `<h1>Sorry, we could not find that page</h1><p>The page ${path.replace(/[<>&"]/g, '')} may have moved. ` +
    'Try our search or browse the products below, or contact customer service.</p>' +
    '<a href="more/">See more</a> <a href="../popular/">Popular pages</a>';
  return layout('Page not found', body, o, visit);
}
