import { z } from 'zod';
import { nameSchema, timestamp } from '../../http/schemas';
import { uuidParams } from '../../http/ids';

export const projectParams = uuidParams('id');
export const createProjectBody = z.object({ name: nameSchema }).strict();
export const updateProjectBody = z.object({ name: nameSchema }).strict();

export const projectSchema = z
  .object({ id: z.uuid(), org_id: z.uuid(), name: z.string(), created_at: timestamp, updated_at: timestamp })
  .meta({ id: 'Project' });
