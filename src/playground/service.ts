import type { Knex } from 'knex';
import { badRequest, notFound } from '../http/errors';
import { callModel, NoProviderKey, type ChatMessage, type LlmDeps } from '../llm/call';
import { resolvePromptRef } from '../prompts/service';
import { fillTemplate } from '../prompts/variables';
import { oneProject } from '../score-configs/service';
import { parsePromptRef } from '../prompts/ref';
import type { PlaygroundInput, VariantResult } from './schemas';
import type { Scope } from '../http/route';

/**
 * The prompt playground: each variant (a stored prompt version or an inline template, a provider
 * and model) is rendered with the variables and run concurrently through the gateway's own call
 * path, so each run is a request row of the project linked to its prompt version.
 */
interface Prepared {
  index: number;
  versionId: string | null;
  provider: string;
  model: string;
  messages: ChatMessage[];
  params: Record<string, unknown>;
}

const textOf = (c: unknown) =>
  typeof c === 'string'
    ? c
    : Array.isArray(c)
      ? c.map((p) => (p as { text?: string })?.text ?? '').join('')
      : JSON.stringify(c);

async function prepare(db: Knex, projectId: string, input: PlaygroundInput): Promise<Prepared[]> {
  return Promise.all(
    input.variants.map(async (v, index) => {
      let template: unknown = v.template;
      let version: Awaited<ReturnType<typeof resolvePromptRef>> = null;
      if (v.prompt !== undefined) {
        const ref = parsePromptRef(v.prompt);
        if (!ref)
          throw badRequest(
            `variants[${index}].prompt must be <name>@<version|latest|label> or a prompt-version id`,
            'invalid_prompt_version',
          );
        version = await resolvePromptRef(db, [projectId], ref);
        if (!version) throw notFound('Prompt version', 'prompt_version_not_found');
        template = version.template;
      }
      const model = v.model ?? version?.model;
      if (!model)
        throw badRequest(`variants[${index}] needs a model (the prompt version names none)`, 'model_required');
      const missing = (name: string) =>
        badRequest(`variables.${name} is missing (the template uses {{${name}}})`, 'missing_variable');
      const raw =
        typeof template === 'string'
          ? [{ role: 'user', content: template }]
          : (template as { role: string; content: unknown }[]);
      const messages = raw.map((m) => ({
        role: m.role,
        content: fillTemplate(textOf(m.content), input.variables, missing),
      }));
      return {
        index,
        versionId: version?.id ?? null,
        provider: v.provider,
        model,
        messages,
        params: { ...(version?.parameters ?? {}), ...(v.parameters ?? {}) },
      };
    }),
  );
}

/** Runs every variant concurrently; `onDelta` streams each variant's text as it arrives. */
export async function runPlayground(
  deps: LlmDeps,
  scope: Scope,
  input: PlaygroundInput,
  onDelta?: (index: number, text: string) => void,
  onResult?: (r: VariantResult) => void,
): Promise<VariantResult[]> {
  const projectId = oneProject(scope);
  const variants = await prepare(deps.db, projectId, input);
  return Promise.all(
    variants.map(async (v) => {
      let r;
      try {
        r = await callModel(deps, {
          orgId: scope.orgId,
          projectId,
          provider: v.provider,
          model: v.model,
          messages: v.messages,
          params: v.params,
          onDelta: onDelta ? (text) => onDelta(v.index, text) : undefined,
          properties: { playground: 'true' },
          promptVersionId: v.versionId,
        });
      } catch (err) {
        if (err instanceof NoProviderKey) throw badRequest(err.message, 'provider_key_missing');
        throw err;
      }
      const result: VariantResult = {
        index: v.index,
        prompt_version_id: v.versionId,
        provider: v.provider,
        model: v.model,
        output: r.content,
        usage: {
          prompt_tokens: r.usage.promptTokens,
          completion_tokens: r.usage.completionTokens,
          total_tokens: r.usage.totalTokens,
        },
        cost_usd: r.costUsd,
        latency_ms: r.latencyMs,
        request_id: r.requestId,
        error: r.status >= 400 ? { status: r.status, message: r.error ?? '' } : null,
      };
      onResult?.(result);
      return result;
    }),
  );
}
