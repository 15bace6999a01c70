/**
 * The dev stack's sign-in link carries a local token in the URL fragment (`#dev_token=…`), which
 * browsers never send to a server: take it out of the address bar and hand it to the session.
 */
export function takeTokenFromLink(): string | null {
  const m = /[#&]dev_token=([^&]+)/.exec(location.hash);
  if (!m) return null;
  history.replaceState(history.state, '', location.pathname + location.search);
  return decodeURIComponent(m[1]!);
}
