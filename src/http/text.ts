import { HttpError } from './errors';

/**
 * Text that PostgreSQL cannot store: NUL (0x00) anywhere in text, and lone UTF-16 surrogates in
 * jsonb. The REST API refuses such input (`invalid_text`, naming the field); paths that must keep
 * what they are given (the proxy's request log, trace ingest) store it with `storableText` instead.
 */
const BAD_GLOBAL = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

// isWellFormed() is exactly "no lone surrogate", and with includes() some 20× faster than a regular expression on
// clean text, which is nearly all text (the request log runs this on every body).
export const hasUnstorableText = (s: string) => !s.isWellFormed() || s.includes('\u0000');

/** NUL removed, lone surrogates replaced by U+FFFD: what the request log and ingest store. */
export const storableText = (s: string) =>
  hasUnstorableText(s) ? s.replace(BAD_GLOBAL, (c) => (c === '\u0000' ? '' : '\ufffd')) : s;

/** Deepest JSON nesting the REST API accepts in a body (ingest has its own, documented limit). */
const MAX_JSON_DEPTH = 64;

/**
 * Walks a parsed JSON value (iteratively: a 10,000-deep body must not overflow the stack) and
 * throws 400 on unstorable text in keys or strings, or on nesting deeper than `maxDepth`.
 */
export function assertStorable(value: unknown, where: string, maxDepth = MAX_JSON_DEPTH): void {
  const stack: [unknown, string, number][] = [[value, where, 0]];
  while (stack.length) {
    const [v, path, depth] = stack.pop()!;
    if (typeof v === 'string') {
      if (hasUnstorableText(v)) throw invalidText(path);
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= maxDepth)
      throw new HttpError(400, 'too_deep', `${where} is nested deeper than ${maxDepth} levels`, {
        max_depth: maxDepth,
      });
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push([v[i], `${path}[${i}]`, depth + 1]);
    } else {
      for (const [k, child] of Object.entries(v)) {
        if (hasUnstorableText(k)) throw invalidText(`${path}.${k}`);
        stack.push([child, `${path}.${k}`, depth + 1]);
      }
    }
  }
}

const invalidText = (path: string) =>
  new HttpError(
    400,
    'invalid_text',
    `Invalid ${path}: text must not contain NUL characters or unpaired UTF-16 surrogates`,
    { field: path },
  );
