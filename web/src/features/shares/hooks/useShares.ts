import { unwrap } from '../../../api/client';
import { useApiMutation } from '../../../api/mutation';
import { useApiQuery } from '../../../api/query';

export const useShares = () =>
  useApiQuery(['shares', 'list'], ({ api, signal }) => unwrap(api.GET('/api/v1/shares', { signal })));
export const useRevokeShare = () =>
  useApiMutation((api, id: string) => unwrap(api.DELETE('/api/v1/shares/{id}', { params: { path: { id } } })), {
    invalidates: ['shares'],
    success: 'Link revoked',
  });
