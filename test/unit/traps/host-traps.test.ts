import { hash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../../src/core/traps/fingerprint.js';
import { HostTraps, type ObservedPage, SOFT_404_PROBE_AFTER } from '../../../src/core/traps/host-traps.js';
import { TRAP_DEFAULTS, type TrapOptions } from '../../../src/core/traps/trap-options.js';
import { normaliseUrl } from '../../../src/core/url.js';

const TEMPLATE =
  '<nav>Home Products Help Events Docs</nav><p>Outdoor goods since 1999, free shipping over fifty dollars</p>';
const FOOTER = '<footer>Harbor Road customer service Monday to Friday</footer>';
const WORDS =
  'amber basalt cedar delta ember fjord granite harbor indigo juniper kelp lagoon meadow nickel orchid'.split(
    ' ',
  );

function html(main: string): string {
  return `<html><body>${TEMPLATE}<main>${main}</main>${FOOTER}</body></html>`;
}

/** Distinct text for page n: words no other n has in that order, and its own numbers. */
function distinct(n: number): string {
  return `${WORDS[n % WORDS.length]} ${WORDS[(n * 7) % WORDS.length]} item${n * 13 + 7} code${n * 31 + 3} price ${n * 3 + 11}.${n % 97}`;
}

function page(url: string, body: string, opts: { depth?: number; finalUrl?: string } = {}): ObservedPage {
  const buf = Buffer.from(body);
  return {
    url,
    key: normaliseUrl(url),
    finalUrl: opts.finalUrl ?? url,
    depth: opts.depth ?? 1,
    contentHash: hash('sha256', buf, 'hex'),
    fingerprint: () => fingerprint(buf),
  };
}

function host(o: Partial<TrapOptions> = {}): HostTraps {
  const h = new HostTraps({ ...TRAP_DEFAULTS, ...o });
  // The host's first page: its template is taken out of every later page.
  h.observe(page('http://h.test/', html('Welcome to the shop, browse our catalogue'), { depth: 0 }));
  return h;
}

describe('learned parameters (DUST)', () => {
  it('learns a parameter whose values do not change the page, after tests on two URLs', () => {
    const h = host();
    const about = html('About us: a family business of three generations');
    const faq = html('Questions customers ask about orders and delivery');
    expect(h.observe(page('http://h.test/about?visit=a1', about)).learnedParams).toEqual([]);
    expect(h.observe(page('http://h.test/about?visit=b2', about)).learnedParams).toEqual([]);
    expect(h.observe(page('http://h.test/faq?visit=c3', faq)).learnedParams).toEqual([]);
    const v = h.observe(page('http://h.test/faq?visit=d4', faq));
    expect(v.learnedParams).toEqual(['visit']);
    expect(v.changed).toBe(true);
    expect([...h.ignoredParams]).toEqual(['visit']);
  });

  it('learns from three tests on one URL (a page linking to itself under a new value each visit)', () => {
    const h = host();
    const about = html('About us: a family business of three generations');
    const learned = ['a', 'b', 'c', 'd'].flatMap(
      (v) => h.observe(page(`http://h.test/about?t=${v}`, about)).learnedParams,
    );
    expect(learned).toEqual(['t']);
  });

  it('never learns a parameter once two of its values gave different pages (a listing)', () => {
    const h = host();
    const learned: string[] = [];
    for (let p = 1; p <= 6; p++)
      learned.push(...h.observe(page(`http://h.test/list?page=${p}`, html(distinct(p)))).learnedParams);
    // Then pages that happen to be alike (an empty last page twice) do not change that.
    const empty = html('No more products');
    learned.push(...h.observe(page('http://h.test/list?page=90', empty)).learnedParams);
    learned.push(...h.observe(page('http://h.test/list?page=91', empty)).learnedParams);
    learned.push(...h.observe(page('http://h.test/list?page=92', empty)).learnedParams);
    expect(learned).toEqual([]);
    expect(h.ignoredParams.size).toBe(0);
  });

  it('is off with learnParams: false', () => {
    const h = host({ learnParams: false });
    const about = html('About us');
    for (const v of ['a', 'b', 'c', 'd']) h.observe(page(`http://h.test/about?t=${v}`, about));
    expect(h.ignoredParams.size).toBe(0);
  });
});

describe('near-duplicate series', () => {
  const day = (y: number, m: number, d: number, depth: number) =>
    page(
      `http://h.test/events/${y}/${m}/${d}/`,
      html(
        `<h1>Events on ${d} ${['December', 'January'][m % 2]} ${y}</h1><p>No events are planned on this day.</p>`,
      ),
      { depth },
    );

  it('stops a pattern whose pages keep coming out alike, each found deeper, after its sample', () => {
    const h = host();
    const verdicts = [];
    // Each day linked from the day before ("next day"): a level deeper each time.
    for (let d = 1; d <= 12; d++) verdicts.push(h.observe(day(2026, 12, d, d)));
    const stopped = verdicts.findIndex((v) => v.stoppedPattern !== undefined);
    // Page 1 is not sampled; pages 2..9 are, and 7 judgements of 8 samples decide.
    expect(stopped).toBe(8);
    expect(verdicts[stopped]?.stoppedPattern).toBe('/events/#/#/#/');
    expect(verdicts[stopped]?.notExpanded).toBe('near_duplicate_series');
    expect(verdicts.slice(0, stopped).every((v) => v.notExpanded === undefined)).toBe(true);
    expect(verdicts.slice(stopped).every((v) => v.notExpanded === 'near_duplicate_series')).toBe(true);
    expect(h.isStopped(h.patternOf('/events/2030/1/1/', ''))).toBe(true);
    expect(h.isStopped(h.patternOf('/events/2030/1/', ''))).toBe(false);
  });

  it('fetches alike pages all found at one depth (a family one page lists), holds back one found deeper', () => {
    const h = host();
    // A month's days, linked from the month's page: depth 2, all alike, past the sample.
    for (let d = 1; d <= 20; d++) expect(h.observe(day(2026, 12, d, 2)).notExpanded).toBeUndefined();
    expect(h.hasStopped).toBe(false);
    // The rest of the family is fetched; a URL of the pattern found deeper is held back before its fetch.
    expect(h.holdsBack('/events/2026/12/21/', '', 2)).toBe(false);
    expect(h.holdsBack('/events/2027/1/2/', '', 3)).toBe(true);
    expect(h.holdsBack('/events/2027/1/', '', 3)).toBe(false);
    // The next month's first day is a level deeper: sampled at once (page 21 is not due for a
    // resample), and the days are a series.
    // One fetched all the same (queued before the sample was full, in flight) makes them a series.
    const deeper = h.observe(day(2027, 1, 1, 3));
    expect(deeper.stoppedPattern).toBe('/events/#/#/#/');
    expect(deeper.notExpanded).toBe('near_duplicate_series');
  });

  it("never stops a family such as Rust's SIMD types, whose pages differ in a word or two", () => {
    const h = host();
    // The aliases std::simd lists, in its order: i16x16, i16x2, ... i8x8.
    const types = [16, 32, 64, 8].flatMap((lane) => [16, 2, 32, 4, 64, 8].map((n) => [lane, n] as const));
    for (const [lane, n] of types.filter(([lane, n]) => lane * n >= 32 && lane * n <= 512)) {
      const t = `i${lane}x${n}`;
      // rustdoc 1.63's page of a type alias, as its text reads (std/simd/type.i8x16.html).
      const body = html(
        '<p>This old browser is unsupported and will most likely display funky things.</p>' +
          `<h1>Type Definition std::simd::${t}</h1><a>source</a><pre>pub type ${t} = Simd&lt;i${lane}, ${n}_usize&gt;;</pre>` +
          '<p>This is a nightly-only experimental API. (portable_simd #86656)</p>' +
          `<p>Expand description</p><p>Vector of ${n} i${lane} values</p>`,
      );
      expect(h.observe(page(`http://h.test/std/simd/type.${t}.html`, body, { depth: 3 })).notExpanded).toBe(
        undefined,
      );
      expect(h.holdsBack(`/std/simd/type.${t}.html`, '', 3)).toBe(false);
    }
    expect(h.hasStopped).toBe(false);
  });

  it('never stops a listing whose pages list different products, nor products that differ', () => {
    const h = host();
    for (let p = 1; p <= 40; p++) {
      expect(
        h.observe(page(`http://h.test/products?page=${p}`, html(distinct(p)), { depth: p })).notExpanded,
      ).toBeUndefined();
      expect(
        h.observe(page(`http://h.test/product/${p}`, html(distinct(1000 + p)), { depth: p + 1 })).notExpanded,
      ).toBeUndefined();
    }
    expect(h.hasStopped).toBe(false);
  });

  it('takes its sample size from the options, and is off with nearDuplicates: false', () => {
    const small = host({ seriesSample: 3 });
    const v = [1, 2, 3, 4, 5].map((d) => small.observe(day(2026, 12, d, d)));
    expect(v.findIndex((x) => x.stoppedPattern !== undefined)).toBe(3);
    const off = host({ nearDuplicates: false });
    for (let d = 1; d <= 20; d++) expect(off.observe(day(2026, 12, d, d)).notExpanded).toBeUndefined();
  });
});

/** A host that has read enough pages to be probed (SOFT_404_PROBE_AFTER). */
function probedHost(o: Partial<TrapOptions> = {}): HostTraps {
  const h = host(o);
  for (let n = 1; n < SOFT_404_PROBE_AFTER; n++)
    h.observe(page(`http://h.test/page/${n}`, html(distinct(500 + n))));
  return h;
}

describe('soft 404s', () => {
  it('is probed only once a host has served a few pages', () => {
    const h = host();
    for (let n = 1; n < SOFT_404_PROBE_AFTER - 1; n++)
      h.observe(page(`http://h.test/page/${n}`, html(distinct(n))));
    expect(h.takeProbe()).toBe(false);
    h.observe(page('http://h.test/last', html(distinct(99))));
    expect(h.takeProbe()).toBe(true);
    expect(host({ soft404: false }).takeProbe()).toBe(false);
  });

  const notFound = (path: string) =>
    html(
      `<h1>Sorry, we could not find that page</h1><p>The page ${path} may have moved. Try our search.</p>`,
    );

  it('learns the host’s "not found" page from the probe and marks pages like it', () => {
    const h = probedHost();
    expect(h.takeProbe()).toBe(true);
    expect(h.takeProbe()).toBe(false);
    const probe = page(
      'http://h.test/crawld-404-probe-00112233aabbccdd',
      notFound('/crawld-404-probe-00112233aabbccdd'),
    );
    h.probed(probe);
    expect(h.soft404).toBe('page');
    expect(h.observe(page('http://h.test/reviews/7/', notFound('/reviews/7/'))).notExpanded).toBe('soft_404');
    expect(h.observe(page('http://h.test/product/docs/', notFound('/product/docs/'))).notExpanded).toBe(
      'soft_404',
    );
    // A real page of the host is not.
    expect(h.observe(page('http://h.test/product/7', html(distinct(7)))).notExpanded).toBeUndefined();
    // Nor a seed (depth 0), whatever it looks like.
    expect(
      h.observe(page('http://h.test/gone', notFound('/gone'), { depth: 0 })).notExpanded,
    ).toBeUndefined();
  });

  it('stops a pattern of soft 404s after three of them', () => {
    const h = probedHost();
    h.takeProbe();
    h.probed(page('http://h.test/crawld-404-probe-0123456789abcdef', notFound('/x')));
    const v = [1, 2, 3].map((i) =>
      h.observe(page(`http://h.test/reviews/${i}/`, notFound(`/reviews/${i}/`))),
    );
    expect(v.map((x) => x.stoppedPattern)).toEqual([undefined, undefined, '/reviews/#/']);
    expect(v.every((x) => x.notExpanded === 'soft_404')).toBe(true);
  });

  it('takes a redirect of missing paths as the soft 404 of pages redirected there', () => {
    const h = probedHost();
    h.takeProbe();
    h.probed(
      page('http://h.test/crawld-404-probe-0123456789abcdef', html('home'), { finalUrl: 'http://h.test/' }),
    );
    expect(h.soft404).toBe('redirect');
    const moved = page('http://h.test/old-page', html('Welcome'), { finalUrl: 'http://h.test/' });
    expect(h.observe(moved).notExpanded).toBe('soft_404');
    expect(h.observe(page('http://h.test/', html('Welcome'))).notExpanded).toBeUndefined();
  });

  it('trusts a host that answers 404 (no probe page)', () => {
    const h = probedHost();
    h.takeProbe();
    h.probed(undefined);
    expect(h.soft404).toBe('none');
    expect(h.takeProbe()).toBe(false);
    expect(h.observe(page('http://h.test/reviews/7/', notFound('/reviews/7/'))).notExpanded).toBeUndefined();
  });
});

describe('repeated paths', () => {
  it('does not expand a page byte-identical to the page of a shorter path it extends', () => {
    const h = host();
    const docs = html('Documentation index: install, configure, run');
    expect(h.observe(page('http://h.test/docs/', docs)).notExpanded).toBeUndefined();
    expect(h.observe(page('http://h.test/docs/docs/', docs)).notExpanded).toBe('repeated_path');
    // The same bytes elsewhere (a mirror) are not a repeated path.
    expect(h.observe(page('http://h.test/mirror/', docs)).notExpanded).toBeUndefined();
  });

  it("expands a directory's index file, the directory's page under its other name", () => {
    const h = host();
    const guide = html('User guide: chapters on installing, configuring and running');
    expect(h.observe(page('http://h.test/guide/', guide)).notExpanded).toBeUndefined();
    expect(h.observe(page('http://h.test/guide/index.html', guide)).notExpanded).toBeUndefined();
    expect(h.observe(page('http://h.test/guide/guide/', guide)).notExpanded).toBe('repeated_path');
  });
});

describe('what is kept beside the frontier', () => {
  it('restores learned parameters, stopped patterns and the soft 404 into a new host state', () => {
    const h = host();
    const about = html('About us');
    for (const v of ['a', 'b', 'c', 'd']) h.observe(page(`http://h.test/about?t=${v}`, about));
    for (let d = 1; d <= 10; d++)
      h.observe(
        page(
          `http://h.test/cal/${d}/`,
          html(
            `Nothing on day ${d}: no events are planned on this day, check back soon for workshops and sales`,
          ),
          // Each day linked from the one before.
          { depth: d },
        ),
      );
    h.takeProbe();
    h.probed(
      page('http://h.test/crawld-404-probe-0123456789abcdef', html('Sorry, page not found here at all')),
    );
    const stored = JSON.parse(JSON.stringify(h.stored()));
    expect(stored.params).toEqual(['t']);
    expect(stored.stopped).toEqual(['/cal/#/']);
    expect(stored.soft404.kind).toBe('page');

    const again = new HostTraps(TRAP_DEFAULTS);
    again.restore(stored);
    expect([...again.ignoredParams]).toEqual(['t']);
    expect(again.isStopped('/cal/#/')).toBe(true);
    expect(again.soft404).toBe('page');
    expect(again.takeProbe()).toBe(false);
  });

  it('ignores stored state it cannot read', () => {
    const h = new HostTraps(TRAP_DEFAULTS);
    h.restore({
      params: 'x',
      stopped: [1],
      soft404: { kind: 'page', hash: 'h', full: '!!', own: 7 },
    } as never);
    expect(h.ignoredParams.size).toBe(0);
    expect(h.soft404).toBe('unknown');
  });
});
