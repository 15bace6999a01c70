import { useNavigate } from '@tanstack/react-router';
import { useEffect, useRef, useState } from 'react';
import { Loading } from '../../../components/QueryState';
import { useSessionStore } from '../../../session/context';
import { finishOidc } from '../oidc';
import { useUiConfig } from '../useUiConfig';
import { SignInPage } from './SignInPage';

/** The identity provider's redirect: exchange the code once, keep the ID token, go to the overview. */
export function AuthCallbackPage() {
  const config = useUiConfig();
  const session = useSessionStore();
  const navigate = useNavigate();
  const started = useRef(false);
  const [error, setError] = useState<string | null>(null);
  const oidc = config.data?.oidc;
  useEffect(() => {
    if (!oidc || started.current) return;
    started.current = true; // a code can be exchanged once: never twice, even if React re-runs effects
    finishOidc(oidc).then(
      (token) => {
        session.signIn(token);
        void navigate({ to: '/', replace: true });
      },
      (e: Error) => setError(e.message),
    );
  }, [oidc, session, navigate]);
  if (error) return <SignInPage error={error} />;
  if (config.data && !oidc) return <SignInPage error="This service has no identity provider configured." />;
  return <Loading label="Signing you in…" />;
}
