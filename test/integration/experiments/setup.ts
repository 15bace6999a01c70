import type { TestApp } from '../../helpers/app';
import { api, type SeededTenant } from '../../helpers/auth';

/** The experiments' dataset `qa`: items i000–i099, question `q-<i>`, expected output `answer q-<i>`; its id. */
export async function seedDataset(app: TestApp, t: SeededTenant): Promise<string> {
  const ed = { token: t.editor.token, orgId: t.orgId };
  const dataset = (await api(app, 'POST', '/api/v1/datasets', { ...ed, body: { name: 'qa' } })).body.data.id as string;
  const items = Array.from({ length: 100 }, (_, i) => ({
    id: `i${String(i).padStart(3, '0')}`,
    input: { question: `q-${i}` },
    expected_output: `answer q-${i}`,
  }));
  await api(app, 'POST', `/api/v1/datasets/${dataset}/items`, { ...ed, body: { items } });
  return dataset;
}
