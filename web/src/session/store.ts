/**
 * The signed-in session: the API token, the chosen organization and project. It is a plain store
 * (not React state) so the fetch middleware reads the current value at the moment a request
 * leaves: an organization switch is visible to the very next request, whatever React renders
 * first. Components subscribe with `useSession` (useSyncExternalStore).
 */
export interface Session {
  token: string | null;
  orgId: string | null;
  /** null: every project of the organization. */
  projectId: string | null;
}

export interface SessionStore {
  get(): Session;
  subscribe(listener: () => void): () => void;
  signIn(token: string): void;
  signOut(): void;
  setOrg(orgId: string | null): void;
  setProject(projectId: string | null): void;
}

const TOKEN = 'gw.token';
const ORG = 'gw.org';
const projectKey = (orgId: string) => `gw.project.${orgId}`;

/** The token lives in sessionStorage (gone with the tab); the org and project choice in localStorage. */
export function createSessionStore(tokens: Storage = sessionStorage, prefs: Storage = localStorage): SessionStore {
  const orgId = prefs.getItem(ORG);
  let state: Session = {
    token: tokens.getItem(TOKEN),
    orgId,
    projectId: orgId ? prefs.getItem(projectKey(orgId)) : null,
  };
  const listeners = new Set<() => void>();
  const set = (next: Session) => {
    state = next;
    listeners.forEach((l) => l());
  };
  return {
    get: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    signIn(token) {
      tokens.setItem(TOKEN, token);
      set({ ...state, token });
    },
    signOut() {
      tokens.removeItem(TOKEN);
      set({ ...state, token: null });
    },
    setOrg(next) {
      if (next === state.orgId) return;
      if (next) prefs.setItem(ORG, next);
      else prefs.removeItem(ORG);
      set({ ...state, orgId: next, projectId: next ? prefs.getItem(projectKey(next)) : null });
    },
    setProject(projectId) {
      if (!state.orgId || projectId === state.projectId) return;
      if (projectId) prefs.setItem(projectKey(state.orgId), projectId);
      else prefs.removeItem(projectKey(state.orgId));
      set({ ...state, projectId });
    },
  };
}
