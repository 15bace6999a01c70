import type { TestApp } from '../../helpers/app';
import { api, type SeededTenant } from '../../helpers/auth';

/**
 * The eval-run tests' evaluators: `contains` (the output mentions "answer") and `judge` (an OpenAI
 * judge scoring helpfulness 0–1), with the project's OpenAI key the judge calls with.
 */
export async function seedEvaluators(app: TestApp, t: SeededTenant): Promise<{ contains: string; judge: string }> {
  await api(app, 'PUT', '/api/v1/provider-keys', {
    token: t.admin.token,
    orgId: t.orgId,
    body: { project_id: t.projectId, provider: 'openai', api_key: 'sk-judge-0123456789' },
  });
  const create = async (body: Record<string, unknown>) =>
    (await api(app, 'POST', '/api/v1/evaluators', { token: t.fullKey, body })).body.data.id as string;
  const contains = await create({ name: 'mentions-answer', type: 'contains', config: { value: 'answer' } });
  const judge = await create({
    name: 'helpfulness',
    type: 'llm_judge',
    config: {
      provider: 'openai',
      model: 'gpt-4o-mini',
      template: 'Question: {{input}}\nAnswer: {{output}}',
      output: { type: 'numeric', min: 0, max: 1 },
    },
  });
  return { contains, judge };
}
