/**
 * Chromium's command line on top of Playwright's (docs/browser.md). Chromium reads only the last
 * `--disable-features`, so ours repeats Playwright's (test/integration/browser-args.test.ts).
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

/** The spare renderer Chromium keeps for the next tab: crawld reuses its tabs. */
const CRAWLD_DISABLED_FEATURES = ['SpareRendererForSitePerProcess'];

export const DISABLED_FEATURES = [...PLAYWRIGHT_DISABLED_FEATURES, ...CRAWLD_DISABLED_FEATURES];

export function chromiumArgs(rendererHeapMiB: number): string[] {
  return [
    // Chromium dials nothing itself (page-run.ts): what escapes interception fails here.
    '--host-resolver-rules=MAP * ~NOTFOUND',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--force-webrtc-ip-handling-policy',
    // A page that allocates without end crashes its own tab early, not the machine.
    `--js-flags=--max-old-space-size=${rendererHeapMiB}`,
    '--disable-dev-shm-usage',
    // Headless, the GPU only composites: one process fewer; its crash is a browser crash.
    '--in-process-gpu',
    `--disable-features=${DISABLED_FEATURES.join(',')}`,
  ];
}
