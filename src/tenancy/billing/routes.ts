import { asUser } from '../../auth/principal';
import type { AppContext } from '../../context';
import { route } from '../../http/route';
import { billingSchema, changePlanBody, planChangeSchema } from './schemas';
import { billingSummary, changePlan } from './service';

const common = { tag: 'Billing', auth: 'jwt' } as const;

/** /api/v1/billing: the organization's plan and usage; admins change the plan. */
export const billingRoutes = ({ db }: AppContext) => {
  const change = (method: 'patch' | 'put') =>
    route({
      ...common,
      method,
      path: '/api/v1/billing',
      summary: "Change the organization's plan",
      roles: ['admin'],
      body: changePlanBody,
      response: planChangeSchema,
      handler: ({ principal, body }) => changePlan(db, asUser(principal), body.plan),
    });
  return [
    route({
      ...common,
      method: 'get',
      path: '/api/v1/billing',
      summary: "The organization's plan, limits and usage",
      response: billingSchema,
      handler: ({ principal }) => billingSummary(db, principal.orgId),
    }),
    change('patch'),
    change('put'),
  ];
};
