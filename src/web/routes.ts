import { z } from 'zod';
import type { AppContext } from '../context';
import { route } from '../http/route';

const uiConfigSchema = z
  .object({
    oidc: z
      .object({ issuer: z.string(), client_id: z.string(), scope: z.string() })
      .nullable()
      .describe('sign in through this identity provider (authorization code + PKCE); null: token sign-in'),
    temporal_ui_url: z.string().nullable().describe('the Temporal Web UI, for links to workflows'),
  })
  .meta({ id: 'UiConfig' });

/** GET /api/v1/ui-config: what the dashboard needs before anyone signs in (no secrets). */
export const webRoutes = ({ config }: AppContext) => [
  route({
    method: 'get',
    path: '/api/v1/ui-config',
    tag: 'Dashboard',
    summary: 'Public settings of the dashboard: how to sign in, where the Temporal UI is',
    auth: 'none',
    response: uiConfigSchema,
    handler: () => ({
      oidc:
        config.UI_OIDC_ISSUER && config.UI_OIDC_CLIENT_ID
          ? { issuer: config.UI_OIDC_ISSUER, client_id: config.UI_OIDC_CLIENT_ID, scope: config.UI_OIDC_SCOPE }
          : null,
      temporal_ui_url: config.TEMPORAL_UI_URL ?? null,
    }),
  }),
];
