import { useState } from 'react';
import { call } from '../api';

/** Writers share the resource read-only: the link is shown once (the token is stored hashed). */
export function ShareButton({ type, id, projectId }: { type: 'trace' | 'request' | 'session'; id: string; projectId: string }) {
  const [url, setUrl] = useState<string | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const share = (redact: boolean) =>
    call('POST', '/api/v1/shares', { project_id: projectId, resource_type: type, resource_id: id, redact_bodies: redact }).then((r) => (setUrl(r.data.url), setErr(null)), (e: Error) => setErr(e.message));
  return (
    <div className="inline">
      <button onClick={() => void share(false)}>Share</button>
      <button onClick={() => void share(true)}>Share without bodies</button>
      {url && <span role="status">Link (shown once): <code data-testid="share-url">{url}</code> <button onClick={() => void navigator.clipboard?.writeText(url)}>Copy</button></span>}
      {err && <span role="alert" className="bad">{err}</span>}
    </div>
  );
}
