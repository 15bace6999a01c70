import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { checkKey, type ExportStore } from './storage';

interface S3Settings {
  bucket: string;
  region: string;
  endpoint?: string | undefined;
  prefix: string;
  forcePathStyle: boolean;
}

const missing = (err: unknown) => ['NoSuchKey', 'NotFound'].includes((err as { name?: string }).name ?? '');

/**
 * An S3-compatible bucket (AWS, MinIO, R2, …) through the AWS SDK; credentials come from the SDK's
 * usual chain (AWS_ACCESS_KEY_ID…, a profile, an instance role). Uploads are multipart streams, so
 * a large file never sits in memory. Documented in docs/exports.md; the tests run the local store.
 * @public loaded lazily by storage.ts (only when S3 is configured)
 */
export function createS3Store(s: S3Settings): ExportStore {
  const client = new S3Client({ region: s.region, endpoint: s.endpoint, forcePathStyle: s.forcePathStyle });
  const key = (k: string) => `${s.prefix}${checkKey(k)}`;
  const read = async (k: string) => {
    try {
      const out = await client.send(new GetObjectCommand({ Bucket: s.bucket, Key: key(k) }));
      return out.Body as Readable;
    } catch (err) {
      if (missing(err)) return null;
      throw err;
    }
  };
  return {
    kind: 's3',
    async write(k) {
      const stream = new PassThrough();
      const done = new Upload({ client, params: { Bucket: s.bucket, Key: key(k), Body: stream } })
        .done()
        .then(() => undefined);
      done.catch(() => undefined);
      return { stream, done };
    },
    read,
    async size(k) {
      try {
        return (await client.send(new HeadObjectCommand({ Bucket: s.bucket, Key: key(k) }))).ContentLength ?? null;
      } catch (err) {
        if (missing(err)) return null;
        throw err;
      }
    },
    async localCopy(k) {
      const dir = await mkdtemp(path.join(tmpdir(), 'export-'));
      const file = path.join(dir, 'part');
      const body = await read(k);
      if (!body) throw new Error(`export object ${k} is missing`);
      await pipeline(body, createWriteStream(file));
      return { path: file, release: () => rm(dir, { recursive: true, force: true }) };
    },
    async remove(k) {
      await client.send(new DeleteObjectCommand({ Bucket: s.bucket, Key: key(k) }));
    },
    async deletePrefix(prefix) {
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({
            Bucket: s.bucket,
            Prefix: key(prefix.replace(/\/+$/, '')) + '/',
            ContinuationToken: token,
          }),
        );
        const objects = (page.Contents ?? []).map((o) => ({ Key: o.Key! }));
        if (objects.length)
          await client.send(new DeleteObjectsCommand({ Bucket: s.bucket, Delete: { Objects: objects } }));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },
  };
}
