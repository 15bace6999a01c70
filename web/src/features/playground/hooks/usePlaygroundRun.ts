import { useState } from 'react';
import { ApiError } from '../../../api/client';
import type { Provider } from '../../../api/enums';
import { useApi } from '../../../session/context';
import type { Template } from '../../prompts/lib/template';
import { deltaEvent, errorEvent, resultEvent, sse, type VariantResult } from '../lib/events';

export interface Variant {
  provider: Provider;
  model: string;
}
export interface Output {
  label: string;
  text: string;
  result?: VariantResult;
}

/** Runs the variants side by side with `stream: true`, growing each output as its deltas arrive. */
export function usePlaygroundRun() {
  const api = useApi();
  const [outputs, setOutputs] = useState<Output[]>([]);
  const [error, setError] = useState<Error | null>(null);
  const [running, setRunning] = useState(false);
  /** `ref` (a prompt-version id) runs the stored version; else `template` inline, with the model `parameters` given. */
  const run = async ({
    template,
    ref,
    parameters,
    variables,
    projectId,
    variants,
  }: {
    template: Template;
    ref?: string;
    parameters?: Record<string, unknown>;
    variables: Record<string, string>;
    projectId: string | undefined;
    variants: Variant[];
  }) => {
    setRunning(true);
    setError(null);
    setOutputs(variants.map((v) => ({ label: `${v.provider}/${v.model}`, text: '' })));
    const patch = (i: number, f: (o: Output) => Output) => setOutputs((all) => all.map((o, k) => (k === i ? f(o) : o)));
    try {
      const {
        data,
        error: failed,
        response,
      } = await api.POST('/api/v1/prompts/playground/run', {
        body: {
          stream: true,
          ...(projectId ? { project_id: projectId } : {}),
          variables,
          variants: variants.map((v) =>
            ref ? { ...v, prompt: ref } : { ...v, template, ...(parameters ? { parameters } : {}) },
          ),
        },
        parseAs: 'stream',
      });
      if (failed || !data)
        throw new ApiError(response.status, failed?.code ?? 'error', failed?.error ?? `HTTP ${response.status}`);
      for await (const { event, data: payload } of sse(data)) {
        if (event === 'delta') {
          const d = deltaEvent.parse(payload);
          patch(d.variant, (o) => ({ ...o, text: o.text + d.text }));
        } else if (event === 'result') {
          const r = resultEvent.parse(payload);
          patch(r.index, (o) => ({ ...o, text: r.output || o.text, result: r }));
        } else if (event === 'error') throw new Error(errorEvent.parse(payload).error);
      }
    } catch (e) {
      setError(e instanceof Error ? e : new Error(String(e)));
    } finally {
      setRunning(false);
    }
  };
  return { outputs, error, running, run };
}
