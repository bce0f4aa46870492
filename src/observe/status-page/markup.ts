/**
 * The status page's HTML and CSS. Kept as TS strings because tsc copies only compiled .ts to
 * dist/, and so the page needs nothing at run time but the daemon itself (works offline, no
 * CDN). Static: every live value is filled in by status.js with textContent, never markup.
 * Links are relative so the page also works behind a reverse proxy under a sub-path.
 */
export const STATUS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>crawld status</title>
<link rel="stylesheet" href="status.css">
<script src="status.js" defer></script>
</head>
<body>
<header>
  <h1>crawld</h1>
  <span id="state" class="badge">…</span>
  <span class="meta">instance <b id="instance">…</b> · v<span id="version">…</span> · up <span id="uptime">…</span></span>
  <span id="conn" class="conn">connecting…</span>
</header>
<main id="main">
  <section class="cards">
    <div class="card wide">
      <h2>Throughput</h2>
      <div class="big"><span id="rate">–</span><small> pages/s</small></div>
      <svg id="spark" viewBox="0 0 240 48" preserveAspectRatio="none" role="img"
        aria-label="pages per second over the last two minutes">
        <polygon id="spark-area" points=""></polygon>
        <polyline id="spark-line" points=""></polyline>
      </svg>
      <div class="sub">averaged over <span id="window">–</span> s · chart: last 2 min, peak <span id="peak">–</span>/s</div>
    </div>
    <div class="card">
      <h2>Done</h2>
      <div class="big" id="done">–</div>
      <div class="sub"><span id="ok">–</span> fetched by this run</div>
    </div>
    <div class="card">
      <h2 title="share of fetch attempts that were retried or dead-lettered">Failure rate</h2>
      <div class="big" id="fail-ratio">–</div>
      <div class="sub"><span id="retry-ps">–</span>/s retried · <span id="fail-ps">–</span>/s dead</div>
    </div>
    <div class="card">
      <h2>Dead letters</h2>
      <div class="big" id="dead">–</div>
      <div class="sub"><span id="failed">–</span> by this run · <span id="skipped">–</span> skipped</div>
    </div>
    <div class="card">
      <h2>In flight</h2>
      <div class="big"><span id="inflight">–</span><small> / <span id="limit">–</span></small></div>
      <meter id="inflight-meter" min="0" max="1" value="0"></meter>
      <div class="sub"><span id="buffered">–</span> waiting for their host</div>
    </div>
    <div class="card">
      <h2>Queue</h2>
      <div class="big" id="pending">–</div>
      <div class="sub"><span id="delayed">–</span> delayed · <span id="leased">–</span> leased</div>
    </div>
    <div class="card">
      <h2 title="circuit breakers open or half-open; hosts paused by Retry-After or 429 backoff">Hosts</h2>
      <div class="big" id="hosts-total">–</div>
      <div class="sub"><span id="hosts-open">–</span> open · <span id="hosts-half">–</span> half-open</div>
      <div class="sub"><span id="hosts-paused">–</span> paused</div>
    </div>
  </section>
  <section>
    <h2 class="section">Hosts: breakers and concurrency <small id="hosts-count"></small></h2>
    <div class="scroll">
    <table id="hosts">
      <thead><tr><th>host</th><th>breaker</th><th class="num">in flight / limit</th><th class="bar"></th><th class="num" title="the learned timeout of the response headers: a request still waiting past it is given up as hung and retried (hover a value for every phase); – until the host has answered enough to learn it">timeout</th><th>paused</th></tr></thead>
      <tbody id="hosts-body"></tbody>
    </table>
    </div>
    <p id="hosts-empty" class="empty">No host is tracked yet.</p>
  </section>
  <section>
    <h2 class="section" title="robots.txt answered 429, 5xx or not at all: nothing on the host is fetched until it is readable (RFC 9309)">Hosts waiting for robots.txt <small id="robots-count"></small></h2>
    <ul id="robots-unreachable"></ul>
    <p id="robots-empty" class="empty">None.</p>
  </section>
  <section>
    <h2 class="section" title="render: { kind: auto } jobs: each host is fetched over HTTP or rendered in the browser, whichever gets the job's fields and links">How hosts are fetched (render: auto) <small id="render-count"></small></h2>
    <ul id="render-choices"></ul>
    <p id="render-empty" class="empty">No host decided yet.</p>
  </section>
  <section>
    <h2 class="section" title="URLs not fetched (session ids, repeated paths, parameters that do not change the page) or pages not expanded (near-duplicate series, soft 404s): docs/traps.md">URLs kept out by trap rules <small id="traps-count"></small></h2>
    <ul id="trap-hosts"></ul>
    <p id="traps-empty" class="empty">None.</p>
  </section>
</main>
<footer>Updated <span id="updated">never</span> · refreshes every second ·
  <a href="api/status">api/status</a> · <a href="api/stats">api/stats</a> · <a href="metrics">metrics</a></footer>
</body>
</html>
`;

export const STATUS_CSS = `:root {
  --bg: #f6f7f9; --fg: #1d2330; --muted: #667085; --card: #fff; --line: #e3e6eb;
  --accent: #2563eb; --ok: #15803d; --warn: #b45309; --bad: #b91c1c; --info: #1d4ed8;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root { --bg: #111418; --fg: #e6e8eb; --muted: #98a2b3; --card: #1b1f26; --line: #2c323c;
    --accent: #60a5fa; --ok: #4ade80; --warn: #fbbf24; --bad: #f87171; --info: #93c5fd; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
header { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 14px; padding: 14px 24px;
  border-bottom: 1px solid var(--line); background: var(--card); }
h1 { margin: 0; font-size: 20px; letter-spacing: .02em; }
.meta { color: var(--muted); }
.meta b { color: var(--fg); font-weight: 600; }
.badge { padding: 2px 10px; border-radius: 999px; font-weight: 600; font-size: 12px;
  text-transform: uppercase; letter-spacing: .05em; color: #fff; background: var(--muted); }
.badge.running, .badge.closed { background: var(--ok); }
.badge.paused, .badge.halfOpen { background: var(--warn); }
.badge.draining { background: var(--info); }
.badge.open { background: var(--bad); }
.conn { margin-left: auto; color: var(--muted); font-size: 12px; }
.conn.down { color: var(--bad); font-weight: 600; }
main { padding: 18px 24px; max-width: 1200px; }
main.stale { opacity: .55; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(180px, 1fr)); gap: 12px;
  grid-auto-flow: dense; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; }
/* Throughput is what one looks at first: two columns by two rows, the chart fills the height. */
.card.wide { grid-column: span 2; grid-row: span 2; display: flex; flex-direction: column; }
@media (max-width: 440px) { .card.wide { grid-column: auto; grid-row: auto; } }
.card h2, h2.section { margin: 0 0 4px; font-size: 12px; font-weight: 600; color: var(--muted);
  text-transform: uppercase; letter-spacing: .06em; }
h2.section { margin: 22px 0 8px; }
.big { font-size: 30px; font-weight: 650; font-variant-numeric: tabular-nums; line-height: 1.2; }
.big small { font-size: 14px; font-weight: 500; color: var(--muted); }
.sub { color: var(--muted); font-size: 12px; font-variant-numeric: tabular-nums; }
#spark { display: block; width: 100%; flex: 1; min-height: 60px; margin: 8px 0 4px; }
#spark-line { fill: none; stroke: var(--accent); stroke-width: 1.5; vector-effect: non-scaling-stroke; }
#spark-area { fill: var(--accent); opacity: .15; }
meter { width: 100%; height: 10px; margin: 6px 0 2px; }
table { width: 100%; border-collapse: collapse; background: var(--card); border: 1px solid var(--line);
  border-radius: 8px; overflow: hidden; font-variant-numeric: tabular-nums; }
th, td { padding: 6px 12px; text-align: left; border-bottom: 1px solid var(--line); white-space: nowrap; }
th { font-size: 12px; color: var(--muted); font-weight: 600; }
td.host { font-family: ui-monospace, Menlo, Consolas, monospace; max-width: 420px; overflow: hidden;
  text-overflow: ellipsis; }
.num { text-align: right; }
td meter { width: 120px; margin: 0; }
/* On a phone the table scrolls sideways instead of widening the page. */
.scroll { overflow-x: auto; }
@media (max-width: 600px) { td.bar, th.bar { display: none; } }
.empty { color: var(--muted); }
footer { padding: 8px 24px 24px; color: var(--muted); font-size: 12px; }
a { color: var(--accent); }
`;
