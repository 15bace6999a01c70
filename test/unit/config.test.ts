import { ConfigError, loadConfig } from '../../src/config';

describe('loadConfig', () => {
  it('has defaults that work on this machine', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PORT: 8080,
      ROLE: 'all',
      TEMPORAL_ADDRESS: '127.0.0.1:7233',
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: 'llm-gateway',
      LOG_LEVEL: 'info',
      MIGRATE_ON_START: false,
    });
  });

  it.each([
    ['PORT', 'eighty', /PORT/],
    ['PORT', '70000', /PORT/],
    ['ROLE', 'scheduler', /ROLE/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL/],
    ['TEMPORAL_ADDRESS', 'no-port', /TEMPORAL_ADDRESS: must be host:port/],
    ['DATABASE_URL', 'not a url', /DATABASE_URL/],
    ['AUTH_JWKS_URL', 'nope', /AUTH_JWKS_URL/],
    ['AUTH_JWT_SECRET', 'short', /AUTH_JWT_SECRET: must be at least 16 characters/],
  ])('rejects %s=%s with a message naming the variable', (key, value, message) => {
    expect(() => loadConfig({ [key]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [key]: value })).toThrow(message);
  });

  it('treats empty strings as unset', () => {
    expect(loadConfig({ PORT: '', AUTH_JWKS_URL: '' }).PORT).toBe(8080);
  });

  it('coerces numbers and booleans from strings', () => {
    const c = loadConfig({ PORT: '9000', MIGRATE_ON_START: 'true' });
    expect(c.PORT).toBe(9000);
    expect(c.MIGRATE_ON_START).toBe(true);
  });
});
