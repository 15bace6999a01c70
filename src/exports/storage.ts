import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import type { Readable, Writable } from 'node:stream';
import type { Config } from '../config';

/**
 * Where export files live: one small interface, the local filesystem by default (EXPORT_DIR) and
 * an S3-compatible bucket when EXPORT_S3_BUCKET is set (src/exports/s3-store.ts). Keys look like
 * `<export id>/part-00003` and `<export id>/export.csv`.
 */
export interface ExportStore {
  readonly kind: 'local' | 's3';
  /** A writable for `key`; `done` resolves once the whole object is stored (never a half object under `key`). */
  write(key: string): Promise<{ stream: Writable; done: Promise<void> }>;
  /** The object's bytes, or null when it does not exist. */
  read(key: string): Promise<Readable | null>;
  size(key: string): Promise<number | null>;
  /** A local file holding the object (the object itself for the local store); `release` removes a copy. */
  localCopy(key: string): Promise<{ path: string; release(): Promise<void> }>;
  /** Removes one object (nothing when it does not exist). */
  remove(key: string): Promise<void>;
  /** Removes every object under `prefix` (an export's directory). */
  deletePrefix(prefix: string): Promise<void>;
}

declare module '../context' {
  interface FeatureServices {
    /** Where export files live (EXPORT_DIR or an S3 bucket). */
    exportStore: ExportStore;
  }
}

const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;
export function checkKey(key: string) {
  if (!SAFE_KEY.test(key) || key.includes('..')) throw new Error(`unsafe export storage key: ${key}`);
  return key;
}

/** The local filesystem under `root`: written to `<file>.tmp` and renamed into place when complete. */
function createLocalStore(root: string): ExportStore {
  const abs = path.resolve(root);
  const file = (key: string) => path.join(abs, checkKey(key));
  return {
    kind: 'local',
    async write(key) {
      const target = file(key);
      const tmp = `${target}.tmp`;
      await mkdir(path.dirname(target), { recursive: true });
      const stream = createWriteStream(tmp);
      const done = finished(stream).then(() => rename(tmp, target));
      done.catch(() => undefined); // observed by the caller; never an unhandled rejection
      return { stream, done };
    },
    async read(key) {
      const f = file(key);
      if (!(await stat(f).catch(() => null))) return null;
      return createReadStream(f);
    },
    size: async (key) => (await stat(file(key)).catch(() => null))?.size ?? null,
    localCopy: async (key) => ({ path: file(key), release: async () => undefined }),
    remove: async (key) => rm(file(key), { force: true }),
    deletePrefix: async (prefix) => rm(file(prefix.replace(/\/+$/, '')), { recursive: true, force: true }),
  };
}

/** The store the settings name: S3 when EXPORT_S3_BUCKET is set, else the local directory. */
export function exportStoreFromConfig(config: Config): ExportStore {
  if (!config.EXPORT_S3_BUCKET) return createLocalStore(config.EXPORT_DIR);
  // Loaded only when configured: the AWS SDK is large.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily on purpose
  const { createS3Store } = require('./s3-store') as typeof import('./s3-store');
  return createS3Store({
    bucket: config.EXPORT_S3_BUCKET,
    region: config.EXPORT_S3_REGION,
    endpoint: config.EXPORT_S3_ENDPOINT,
    prefix: config.EXPORT_S3_PREFIX,
    forcePathStyle: config.EXPORT_S3_FORCE_PATH_STYLE,
  });
}
