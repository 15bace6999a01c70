import { z } from 'zod';
import { organizationSchema } from '../organizations/schemas';

export const meSchema = z
  .object({
    user: z.object({ id: z.uuid(), sub: z.string(), email: z.string().nullable() }),
    organizations: organizationSchema.array(),
  })
  .meta({ id: 'Me' });
