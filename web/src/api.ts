import { useCallback, useEffect, useState } from 'react';

/** The REST API, and nothing else: every screen reads and writes through these calls. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

export interface Session {
  token: string;
  orgId: string | null;
}

let current: Session = { token: '', orgId: null };
export const setSession = (s: Session) => (current = s);
export const getSession = () => current;

export async function call<T = any>(method: string, path: string, body?: unknown): Promise<{ data: T; next_cursor?: string | null }> {
  const headers: Record<string, string> = { authorization: `Bearer ${current.token}` };
  if (current.orgId) headers['x-organization-id'] = current.orgId;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json().catch(() => null);
  if (!res.ok || !json?.success) throw new ApiError(res.status, json?.code ?? 'error', json?.error ?? `HTTP ${res.status}`);
  return json;
}

export const get = <T = any>(path: string) => call<T>('GET', path).then((r) => r.data);

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | Error | undefined;
  loading: boolean;
  reload: () => void;
}

/** A GET that re-runs when its path changes; `null` skips it. */
export function useApi<T = any>(path: string | null): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: !!path });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!path) return;
    let live = true;
    setState((s) => ({ ...s, loading: true, error: undefined }));
    get<T>(path).then(
      (data) => live && setState({ data, loading: false }),
      (error: Error) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [path, tick]);
  return { data: state.data, error: state.error, loading: state.loading, reload: useCallback(() => setTick((n) => n + 1), []) };
}

/** `?a=1&b=2` from an object, leaving out empty values. */
export const qs = (o: Record<string, string | number | undefined | null>) => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
};
