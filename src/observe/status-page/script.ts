/**
 * The status page's browser script, served as /status.js so the CSP can forbid inline
 * scripts. Plain JS in a string (tsc only emits .ts, and the page must need no build step
 * nor CDN). Host names come from the network: every value goes into the DOM through
 * textContent or numeric properties, never innerHTML. Polls with setTimeout after each
 * answer, not setInterval, so a slow daemon never gets a pile of overlapping requests.
 */
export const STATUS_JS = `'use strict';
(() => {
  const POLL_MS = 1000;
  const SPARK_POINTS = 120;
  const STATES = ['new', 'running', 'paused', 'draining', 'stopped'];
  const BREAKERS = { closed: 'closed', halfOpen: 'half-open', open: 'open' };
  const $ = (id) => document.getElementById(id);
  const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
  const dec = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const sec = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
  const history = [];
  const rows = new Map();

  const set = (id, text) => {
    const el = $(id);
    if (el.textContent !== text) el.textContent = text;
  };
  const n = (v) => (typeof v === 'number' && isFinite(v) ? int.format(v) : '–');
  const r = (v) => (typeof v === 'number' && isFinite(v) ? dec.format(v) : '–');
  const pct = (v) => (typeof v === 'number' && isFinite(v) ? dec.format(v * 100) + ' %' : '–');
  const pad = (v) => String(v).padStart(2, '0');
  const duration = (s) => {
    s = Math.max(0, Math.floor(s));
    const d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
    if (d > 0) return d + ' d ' + pad(h) + ' h';
    if (h > 0) return h + ' h ' + pad(m) + ' m';
    if (m > 0) return m + ' m ' + pad(s % 60) + ' s';
    return s + ' s';
  };

  function renderSpark() {
    // Until the history is full the points spread over the whole width: a fresh page shows
    // a readable line at once instead of a sliver at the right edge.
    const max = Math.max(1, ...history);
    const step = 240 / Math.max(1, history.length - 1);
    const pts = history.map((v, i) => (i * step).toFixed(1) + ',' + (46 - (v / max) * 42).toFixed(1));
    $('spark-line').setAttribute('points', pts.join(' '));
    const area = pts.length > 1 ? ['0,48', ...pts, '240,48'] : [];
    $('spark-area').setAttribute('points', area.join(' '));
    set('peak', history.length > 0 ? r(Math.max(...history)) : '–');
  }

  function cell(tr, cls) {
    const td = document.createElement('td');
    if (cls) td.className = cls;
    tr.appendChild(td);
    return td;
  }

  function hostRow(host) {
    let row = rows.get(host);
    if (row) return row;
    const tr = document.createElement('tr');
    const name = cell(tr, 'host');
    name.textContent = host;
    name.title = host;
    const badge = document.createElement('span');
    cell(tr).appendChild(badge);
    const load = cell(tr, 'num');
    const meter = document.createElement('meter');
    meter.min = 0;
    cell(tr, 'bar').appendChild(meter);
    const timeout = cell(tr, 'num');
    const paused = cell(tr);
    row = { tr, badge, load, meter, timeout, paused };
    rows.set(host, row);
    return row;
  }

  function renderHosts(s) {
    const body = $('hosts-body');
    const seen = new Set();
    for (const h of s.hosts.shown) {
      const row = hostRow(h.host);
      seen.add(h.host);
      const label = BREAKERS[h.breaker] || 'unknown';
      row.badge.className = 'badge ' + (BREAKERS[h.breaker] ? h.breaker : '');
      if (row.badge.textContent !== label) row.badge.textContent = label;
      row.load.textContent = n(h.inflight) + ' / ' + n(h.limit);
      row.meter.max = Math.max(1, h.limit);
      row.meter.value = h.inflight;
      // The learned timeouts (ms); a phase not learned yet waits its configured timeout.
      const t = h.timeouts || {};
      const secs = (ms) => (typeof ms === 'number' ? sec.format(ms / 1000) + ' s' : 'configured');
      row.timeout.textContent = typeof t.headers === 'number' ? secs(t.headers) : '–';
      row.timeout.title = ['connect', 'headers', 'body', 'render'].map((p) => p + ' ' + secs(t[p])).join(' · ');
      // Relative to the server's clock, not the browser's: the two may disagree.
      row.paused.textContent =
        typeof h.pausedUntil === 'number' ? 'for ' + duration((h.pausedUntil - s.now) / 1000) : '–';
      body.appendChild(row.tr); // appendChild moves an existing row: keeps the server's order
    }
    for (const [host, row] of rows) {
      if (!seen.has(host)) {
        row.tr.remove();
        rows.delete(host);
      }
    }
    $('hosts-empty').hidden = s.hosts.shown.length > 0;
    $('hosts').hidden = s.hosts.shown.length === 0;
    set('hosts-total', n(s.hosts.total));
    set('hosts-open', n(s.hosts.open));
    set('hosts-half', n(s.hosts.halfOpen));
    set('hosts-paused', n(s.hosts.paused));
    set('hosts-count', s.hosts.total > s.hosts.shown.length
      ? '(' + n(s.hosts.shown.length) + ' of ' + n(s.hosts.total) + ')'
      : '(' + n(s.hosts.total) + ')');
  }

  function renderRobots(s) {
    const list = $('robots-unreachable');
    const hosts = (s.robots && s.robots.unreachable) || [];
    list.replaceChildren(...hosts.map((h) => {
      const li = document.createElement('li');
      li.textContent = h.origin + ' — ' + h.outcome + ', next try in ' + duration(Math.max(0, h.retryAt - s.now) / 1000) +
        (h.usingCachedCopy ? ' (earlier copy applies)' : '');
      return li;
    }));
    $('robots-empty').hidden = hosts.length > 0;
    set('robots-count', '(' + n(hosts.length) + ')');
  }

  function renderChoices(s) {
    const r = s.render || { http: 0, browser: 0, shown: [] };
    $('render-choices').replaceChildren(...r.shown.map((h) => {
      const li = document.createElement('li');
      li.textContent = h.host + ' (' + h.job + '): ' + h.decision;
      return li;
    }));
    $('render-empty').hidden = r.shown.length > 0;
    set('render-count', '(' + n(r.http) + ' http, ' + n(r.browser) + ' browser)');
  }

  function renderTraps(s) {
    const t = s.traps || { total: 0, shown: [] };
    $('trap-hosts').replaceChildren(...t.shown.map((h) => {
      const li = document.createElement('li');
      const parts = Object.keys(h.reasons).filter((k) => h.reasons[k] > 0)
        .map((k) => k.replace(/_/g, ' ') + ' ' + n(h.reasons[k]));
      li.textContent = h.host + ': ' + n(h.total) + ' (' + parts.join(', ') + ')';
      return li;
    }));
    $('traps-empty').hidden = t.shown.length > 0;
    set('traps-count', '(' + n(t.total) + ')');
  }

  function render(s) {
    const state = STATES.includes(s.state) ? s.state : 'unknown';
    $('state').className = 'badge ' + state;
    set('state', state);
    set('instance', String(s.instance));
    set('version', String(s.version));
    set('uptime', duration(s.uptimeSeconds));
    set('rate', r(s.rates.pagesPerSec));
    set('window', s.rates.windowSeconds > 0 ? int.format(s.rates.windowSeconds) : '–');
    set('done', n(s.queue.done));
    set('ok', n(s.totals.ok));
    set('fail-ratio', pct(s.rates.failureRatio));
    set('fail-ps', r(s.rates.failuresPerSec));
    set('retry-ps', r(s.rates.retriesPerSec));
    set('dead', n(s.queue.dead));
    set('failed', n(s.totals.failed));
    set('skipped', n(s.totals.skipped));
    set('inflight', n(s.inflight.now));
    set('limit', n(s.inflight.limit));
    $('inflight-meter').max = Math.max(1, s.inflight.limit);
    $('inflight-meter').value = s.inflight.now;
    set('buffered', n(s.inflight.buffered));
    set('pending', n(s.queue.pending));
    set('delayed', n(s.queue.delayed));
    set('leased', n(s.queue.leased));
    if (typeof s.rates.pagesPerSec === 'number') {
      history.push(s.rates.pagesPerSec);
      if (history.length > SPARK_POINTS) history.shift();
    }
    renderSpark();
    renderHosts(s);
    renderRobots(s);
    renderChoices(s);
    renderTraps(s);
    document.title = r(s.rates.pagesPerSec) + ' pages/s · ' + state + ' · crawld';
    set('updated', new Date().toLocaleTimeString());
    $('conn').className = 'conn';
    set('conn', 'live');
    $('main').classList.remove('stale');
  }

  function down(err) {
    $('conn').className = 'conn down';
    set('conn', 'disconnected (' + String(err && err.message ? err.message : err) + '), retrying');
    $('main').classList.add('stale');
  }

  function poll() {
    fetch('api/status', { cache: 'no-store', headers: { accept: 'application/json' } })
      .then((res) => {
        if (!res.ok) throw new Error('HTTP ' + res.status);
        return res.json();
      })
      .then(render, down)
      .catch(down)
      .finally(() => setTimeout(poll, POLL_MS));
  }
  poll();
})();
`;
