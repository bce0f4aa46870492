/** Evaluated in the page's own world: far cheaper than page.content() (docs/browser.md). */

/** window.open opens nothing, only counts: a storm of them costs no page. */
export const NO_POPUPS_SCRIPT = `(() => {
  let n = 0;
  const open = () => { n++; return null; };
  Object.defineProperty(window, 'open', { value: open, writable: false, configurable: false });
  Object.defineProperty(window, '__crawldPopups', { get: () => n, configurable: false });
})();`;

/** Resolves once a CSS selector matches (checked on each DOM mutation); a bad selector throws. */
export const WAIT_FOR = `((selector) => new Promise((resolve) => {
  if (document.querySelector(selector)) return resolve(true);
  const observer = new MutationObserver(() => {
    if (document.querySelector(selector)) { observer.disconnect(); resolve(true); }
  });
  observer.observe(document, { childList: true, subtree: true, attributes: true });
}))`;

/** The DOM as HTML (with its doctype) and the number of window.open calls NO_POPUPS_SCRIPT counted. */
export const READ_DOM = `(() => {
  const d = document.doctype;
  return [(d ? '<!DOCTYPE ' + d.name + '>' : '') + document.documentElement.outerHTML, Number(window.__crawldPopups) | 0];
})()`;
