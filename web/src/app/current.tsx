import { createContext, useContext, type ReactNode } from 'react';
import type { Role, Schema } from '../api/types';

/** The signed-in user and the organization being viewed, with what the role allows. */
export interface Current {
  me: Schema<'Me'>;
  org: Schema<'Me'>['organizations'][number];
  role: Role;
  /** admin or editor: the UI shows write controls (the API still decides every write). */
  canWrite: boolean;
  isAdmin: boolean;
}

const CurrentContext = createContext<Current | null>(null);

export function CurrentProvider({ value, children }: { value: Current; children: ReactNode }) {
  return <CurrentContext.Provider value={value}>{children}</CurrentContext.Provider>;
}

export function useCurrent(): Current {
  const c = useContext(CurrentContext);
  if (!c) throw new Error('useCurrent outside the signed-in layout');
  return c;
}
