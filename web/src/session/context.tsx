import { createContext, useContext, useSyncExternalStore, type ReactNode } from 'react';
import type { Api } from '../api/client';
import type { Session, SessionStore } from './store';

/** The app's long-lived objects, made once in main.tsx and handed down (no module-level singletons). */
interface Services {
  session: SessionStore;
  api: Api;
}

const ServicesContext = createContext<Services | null>(null);

export function ServicesProvider({ session, api, children }: Services & { children: ReactNode }) {
  return <ServicesContext.Provider value={{ session, api }}>{children}</ServicesContext.Provider>;
}

function useServices(): Services {
  const s = useContext(ServicesContext);
  if (!s) throw new Error('ServicesProvider is missing');
  return s;
}

export const useSessionStore = () => useServices().session;
export const useApi = () => useServices().api;

/** The current session; re-renders on sign-in, sign-out and organization or project switches. */
export function useSession(): Session {
  const store = useSessionStore();
  return useSyncExternalStore(store.subscribe, store.get);
}
