import { useEffect, useState } from 'react';

/** A small history router: pages and their filters live in the URL, so every view is addressable. */
export function navigate(to: string) {
  history.pushState(null, '', to);
  dispatchEvent(new PopStateEvent('popstate'));
}

export function useLocation() {
  const [loc, setLoc] = useState(() => ({ path: location.pathname, search: location.search }));
  useEffect(() => {
    const on = () => setLoc({ path: location.pathname, search: location.search });
    addEventListener('popstate', on);
    return () => removeEventListener('popstate', on);
  }, []);
  return loc;
}

/** The page's query parameters, and a setter that keeps them in the URL (replace, not push). */
export function useQuery(): [URLSearchParams, (patch: Record<string, string | undefined>) => void] {
  const { search } = useLocation();
  const params = new URLSearchParams(search);
  const set = (patch: Record<string, string | undefined>) => {
    const next = new URLSearchParams(location.search);
    for (const [k, v] of Object.entries(patch)) (v ? next.set(k, v) : next.delete(k));
    const s = next.toString();
    history.replaceState(null, '', `${location.pathname}${s ? `?${s}` : ''}`);
    dispatchEvent(new PopStateEvent('popstate'));
  };
  return [params, set];
}
