export const PLANS = ['free', 'pro', 'team', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

/** Workspaces a user may own, by effective plan (the highest plan among the workspaces they own). */
export const WORKSPACE_LIMITS: Record<Plan, number | null> = { free: 1, pro: 2, team: 5, enterprise: null };

const planRank = (p: Plan) => PLANS.indexOf(p);

export function highestPlan(plans: Plan[]): Plan {
  return plans.reduce<Plan>((best, p) => (planRank(p) > planRank(best) ? p : best), 'free');
}
