/**
 * Chromium's command line, on top of Playwright's defaults (docs/browser.md, _Pool_).
 *
 * Chromium reads only the last `--disable-features`, and Playwright passes its own: so the list
 * here is Playwright's (playwright-core 1.65, chromiumSwitches.ts; test/integration/
 * browser-args.test.ts fails when a Playwright upgrade adds one that is missing here) and crawld's.
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

/**
 * The spare renderer: a renderer process Chromium starts ahead for the next new tab, resident
 * all along. crawld reuses its tabs: new ones open only when a context is replaced, every
 * pagesPerContext renders.
 */
const CRAWLD_DISABLED_FEATURES = ['SpareRendererForSitePerProcess'];

export const DISABLED_FEATURES = [...PLAYWRIGHT_DISABLED_FEATURES, ...CRAWLD_DISABLED_FEATURES];

export function chromiumArgs(rendererHeapMiB: number): string[] {
  return [
    // Chromium resolves no name and dials no address itself: every request is fulfilled
    // by crawld's fetcher (page-run.ts), and anything that escapes interception
    // (preconnect, WebRTC, a websocket) fails here instead of reaching the network.
    '--host-resolver-rules=MAP * ~NOTFOUND',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--force-webrtc-ip-handling-policy',
    // A page that allocates without end crashes its own tab early, not the machine.
    `--js-flags=--max-old-space-size=${rendererHeapMiB}`,
    '--disable-dev-shm-usage',
    // The GPU thread in the browser process rather than a process of its own: headless, it
    // only composites, and a crash of it is a browser crash, which the pool already survives.
    '--in-process-gpu',
    `--disable-features=${DISABLED_FEATURES.join(',')}`,
  ];
}
