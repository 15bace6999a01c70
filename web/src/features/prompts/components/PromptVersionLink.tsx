import { unwrap } from '../../../api/client';
import { useApiQuery } from '../../../api/query';
import { AppLink } from '../../../components/Links';

/** A prompt version named by its id, as `name v3` linked to its prompt (the id itself until it resolves). */
export function PromptVersionLink({ id }: { id: string }) {
  const v = useApiQuery(
    ['prompts', 'resolve', id],
    ({ api, signal }) => unwrap(api.GET('/api/v1/prompts/resolve', { params: { query: { ref: id } }, signal })),
    { staleTime: Infinity, retry: false },
  );
  if (!v.data) return <>{id}</>;
  return (
    <AppLink to="/prompts/$id" params={{ id: v.data.prompt_id }}>
      {v.data.name} v{v.data.version}
    </AppLink>
  );
}
