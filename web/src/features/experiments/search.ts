import { oneOf, search } from '../../lib/search';

/** The item runs' statuses (the API's; checked against the generated types in hooks/useExperiments.ts). */
export const ITEM_STATUSES = ['completed', 'error', 'pending'] as const;

/** `/experiments/<id>?status=error`: one experiment's item runs, narrowed to a status. */
export const experimentSearch = search({ status: oneOf(ITEM_STATUSES) });
