import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { configKeys } from '../../src/config';

const root = path.resolve(__dirname, '../..');
const compose = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<
    string,
    {
      build?: string;
      image?: string;
      depends_on?: string[] | Record<string, unknown>;
      environment?: Record<string, string>;
    }
  >;
};

/** No Docker engine runs here, so the compose file is checked structurally. */
describe('docker-compose.yml', () => {
  it('declares the production services', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['api', 'postgres', 'temporal', 'temporal-ui', 'worker']);
  });

  it('only depends on services it declares', () => {
    for (const [name, svc] of Object.entries(compose.services)) {
      const deps = Array.isArray(svc.depends_on) ? svc.depends_on : Object.keys(svc.depends_on ?? {});
      for (const dep of deps)
        expect({ service: name, dep, exists: dep in compose.services }).toEqual({ service: name, dep, exists: true });
    }
  });

  it('builds the gateway services from the Dockerfile and runs each role', () => {
    expect(existsSync(path.join(root, 'Dockerfile'))).toBe(true);
    expect(compose.services.api!.build).toBe('.');
    expect(compose.services.worker!.build).toBe('.');
    expect(compose.services.api!.environment!.ROLE).toBe('api');
    expect(compose.services.worker!.environment!.ROLE).toBe('worker');
  });

  it('sets only environment variables the service reads', () => {
    for (const name of ['api', 'worker']) {
      for (const key of Object.keys(compose.services[name]!.environment ?? {})) {
        expect({ service: name, key, known: (configKeys as string[]).includes(key) }).toEqual({
          service: name,
          key,
          known: true,
        });
      }
    }
  });

  it('points the gateway at the compose PostgreSQL and Temporal', () => {
    const env = compose.services.api!.environment!;
    expect(new URL(env.DATABASE_URL!).hostname).toBe('postgres');
    expect(env.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(compose.services.temporal!.environment!.DB).toBe('postgres12');
    expect(compose.services['temporal-ui']!.environment!.TEMPORAL_ADDRESS).toBe('temporal:7233');
  });

  it('names only files the Dockerfile can copy', () => {
    const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    for (const m of dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)) {
      for (const src of m[1]!.split(/\s+/))
        expect({ src, exists: existsSync(path.join(root, src)) }).toEqual({ src, exists: true });
    }
  });
});
