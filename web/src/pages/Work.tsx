import { useEffect, useState, type KeyboardEvent } from 'react';
import { call, getSession, useApi } from '../api';
import { Page, Status } from '../components/States';

/** The playground: up to 4 variants side by side, their output streamed as it arrives (server-sent events). */
export function Playground() {
  const [out, setOut] = useState<{ text: string; result?: any }[]>([]);
  const [err, setErr] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const projects = useApi<any[]>('/api/v1/projects');
  const run = async (f: FormData) => {
    setBusy(true);
    setErr(null);
    const models = String(f.get('models')).split(',').map((m) => m.trim()).filter(Boolean).slice(0, 4);
    setOut(models.map(() => ({ text: '' })));
    try {
      const { token, orgId } = getSession();
      const res = await fetch('/api/v1/prompts/playground/run', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(orgId ? { 'x-organization-id': orgId } : {}) },
        body: JSON.stringify({ stream: true, project_id: f.get('project_id') || undefined, variants: models.map((m) => { const [provider, ...model] = m.split('/'); return { provider, model: model.join('/'), template: [{ role: 'user', content: String(f.get('prompt')) }] }; }) }),
      });
      if (!res.ok || !res.body) throw new Error(((await res.json().catch(() => null)) as any)?.error ?? `HTTP ${res.status}`);
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = '';
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        buf += r.value;
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (!data) continue;
          const d = JSON.parse(data);
          if (event === 'delta') setOut((o) => o.map((v, k) => (k === d.variant ? { ...v, text: v.text + d.text } : v)));
          if (event === 'result') setOut((o) => o.map((v, k) => (k === d.index ? { text: d.output || v.text, result: d } : v)));
        }
      }
    } catch (e) {
      setErr((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Page title="Playground">
      <form className="card" onSubmit={(e) => (e.preventDefault(), void run(new FormData(e.currentTarget)))}>
        <label>Prompt <textarea name="prompt" rows={4} required defaultValue="Say hello in one word." /></label>
        <label>Project <select name="project_id">{(projects.data ?? []).map((p) => <option key={p.id} value={p.id}>{p.name}</option>)}</select></label>
        <label>Variants: provider/model, comma-separated (up to 4) <input name="models" defaultValue="openai/gpt-4o-mini" /></label>
        <button type="submit" disabled={busy}>{busy ? 'Running…' : 'Run'}</button>
        {err && <p role="alert" className="bad">{err}</p>}
      </form>
      <div className="variants" aria-live="polite">
        {out.map((v, i) => (
          <article key={i} className="card" aria-label={`Variant ${i + 1}`}>
            <h2>{v.result ? `${v.result.provider}/${v.result.model}` : `Variant ${i + 1}`}</h2>
            <pre className="code" data-testid={`variant-${i}`}>{v.result?.error ? v.result.error.message : v.text}</pre>
            {v.result && <p className="muted">{v.result.usage.total_tokens} tokens · {Math.round(v.result.latency_ms)} ms</p>}
          </article>
        ))}
      </div>
    </Page>
  );
}

/** The annotation queue: keyboard-driven (1–9 score the first config, s skips, r releases the item). */
export function Annotation() {
  const campaigns = useApi<any[]>('/api/v1/human-evals');
  const [campaign, setCampaign] = useState<string | null>(null);
  const [item, setItem] = useState<any>(undefined);
  const [done, setDone] = useState(0);
  const [err, setErr] = useState<string | null>(null);
  const Q = '/api/v1/annotation/queue';
  const take = (p: Promise<{ data: any }>) => p.then((r) => (setItem(r.data), setErr(null)), (e: Error) => setErr(e.message));
  useEffect(() => {
    if (campaign) void take(call('GET', `${Q}?human_eval_id=${campaign}`));
  }, [campaign]);
  const answer = (n: number) => {
    const cfg = item?.score_configs?.[0];
    if (!item || !cfg) return;
    const cat = cfg.data_type === 'categorical' ? cfg.categories?.[n - 1] : null;
    const score = cat ? { config_id: cfg.id, string_value: cat.label } : { config_id: cfg.id, value: cfg.data_type === 'boolean' ? (n ? 1 : 0) : n };
    void take(call('POST', Q, { human_eval_id: campaign, target_key: item.target_key, scores: [score] }).then((r) => (setDone((d) => d + 1), r)));
  };
  const key = (e: KeyboardEvent) => {
    if (/^[0-9]$/.test(e.key)) answer(Number(e.key));
    if (e.key === 's' && item) void take(call('POST', `${Q}/skip`, { human_eval_id: campaign, target_key: item.target_key }));
    if (e.key === 'r' && item) void take(call('POST', `${Q}/release`, { human_eval_id: campaign, target_key: item.target_key }));
  };
  return (
    <Page title="Annotation queue">
      <Status q={campaigns} empty={(d) => d.length === 0}>
        {(d) => (
          <label>Campaign <select value={campaign ?? ''} onChange={(e) => setCampaign(e.target.value || null)}><option value="">choose…</option>{d.map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}</select></label>
        )}
      </Status>
      {err && <p role="alert" className="bad">{err}</p>}
      <p className="muted" aria-live="polite">{done} reviewed in this session</p>
      {campaign && item !== undefined && (
        <div className="card review" tabIndex={0} onKeyDown={key} aria-label="Item to review: press a number to score, s to skip, r to release">
          {item ? (
            <>
              {item.human_eval.instructions && <p>{item.human_eval.instructions}</p>}
              <h2>Input</h2><pre className="code" tabIndex={0}>{JSON.stringify(item.content.input, null, 2)}</pre>
              <h2>Output</h2><pre className="code" tabIndex={0}>{JSON.stringify(item.content.output, null, 2)}</pre>
              <p className="muted">Press 1–9 to score “{item.score_configs[0]?.name}”, s to skip, r to release.</p>
            </>
          ) : (
            <p>Nothing left for you in this campaign.</p>
          )}
        </div>
      )}
    </Page>
  );
}
