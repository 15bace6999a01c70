/**
 * HS256 secret used by `npm run dev` and `npm run token` when AUTH_JWT_SECRET is unset.
 * Local development only: production roles must configure AUTH_JWKS_URL or their own secret.
 */
export const DEV_JWT_SECRET = 'dev-only-secret-change-me-0123456789';
