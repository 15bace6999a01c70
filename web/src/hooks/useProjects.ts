import { unwrap } from '../api/client';
import { useApiQuery } from '../api/query';

/** The organization's projects (the scope picker, forms that create things in a project). */
export const useProjects = () =>
  useApiQuery(['projects'], ({ api, signal }) => unwrap(api.GET('/api/v1/projects', { signal })));
