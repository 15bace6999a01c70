import { unwrap } from '../../../api/client';
import { useApiQuery } from '../../../api/query';

export const useShares = () => useApiQuery(['shares', 'list'], ({ api, signal }) => unwrap(api.GET('/api/v1/shares', { signal })));
