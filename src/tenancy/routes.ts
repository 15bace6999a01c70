import type { AppContext } from '../context';
import { billingRoutes } from './billing/routes';
import { invitationRoutes } from './invitations/routes';
import { meRoutes } from './me/routes';
import { memberRoutes } from './members/routes';
import { organizationRoutes } from './organizations/routes';
import { projectRoutes } from './projects/routes';

/** Organizations, their projects, members, invitations and billing, and the caller's own view. */
export const tenancyRoutes = (ctx: AppContext) => [
  ...organizationRoutes(ctx),
  ...projectRoutes(ctx),
  ...memberRoutes(ctx),
  ...invitationRoutes(ctx),
  ...billingRoutes(ctx),
  ...meRoutes(ctx),
];
