import type { Router } from 'express';
import type { AppContext } from '../../context';
import { apiKeysRouter } from './api-keys';
import { auditLogsRouter } from './audit-logs';
import { billingRouter } from './billing';
import { invitationsRouter } from './invitations';
import { meRouter } from './me';
import { membersRouter } from './members';
import { organizationsRouter } from './organizations';
import { providerKeysRouter } from './provider-keys';

/** Tenancy, auth and keys: every router of this area, in one registration. */
export const tenancyRouters: ((ctx: AppContext) => Router)[] = [
  organizationsRouter,
  membersRouter,
  invitationsRouter,
  apiKeysRouter,
  providerKeysRouter,
  billingRouter,
  auditLogsRouter,
  meRouter,
];
