import type { Detection, Severity } from './types';
import { maskSecret } from './mask';

/**
 * Leaked secrets: the secretlint recommended preset (a maintained corpus: AWS, GCP, GitHub,
 * GitLab, Slack, npm, OpenAI, Anthropic, private keys, connection strings, …) plus the formats it
 * does not cover: Stripe live keys, Google API keys and JWTs (whose header must decode to JSON
 * naming an `alg`, so a look-alike base64 string does not match).
 */
type Preset = typeof import('@secretlint/secretlint-rule-preset-recommend', { with: { 'resolution-mode': 'import' } });
type Rule = Preset['rules'][number];
type Handler = { file?: (source: unknown) => void | Promise<void> };

/** By the rule's short name; a secret the preset knows but this table does not is `high`. */
const SEVERITY: Record<string, Severity> = {
  aws: 'critical',
  gcp: 'critical',
  privatekey: 'critical',
  'database-connection-string': 'critical',
  stripe: 'critical',
  openai: 'critical',
  anthropic: 'critical',
  'hashicorp-vault': 'critical',
  '1password': 'critical',
  jwt: 'medium',
  basicauth: 'high',
};

const EXTRA: { category: string; pattern: RegExp; check?: (v: string) => boolean }[] = [
  { category: 'stripe', pattern: /(?<![A-Za-z0-9_])(?:sk|rk)_live_[0-9A-Za-z]{24,99}(?![A-Za-z0-9_])/g },
  { category: 'google_api_key', pattern: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/g },
  {
    category: 'jwt',
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}(?![A-Za-z0-9_-])/g,
    check: jwtHeaderNamesAlg,
  },
];

function jwtHeaderNamesAlg(token: string): boolean {
  try {
    const header = JSON.parse(Buffer.from(token.slice(0, token.indexOf('.')), 'base64url').toString('utf8')) as unknown;
    return typeof header === 'object' && header !== null && typeof (header as { alg?: unknown }).alg === 'string';
  } catch {
    return false;
  }
}

export interface SecretDetector {
  detect(text: string): Promise<Detection[]>;
}

/** A rule's report: its range and the text its message names (the `KEY`, `TOKEN`, `URI`… it found). */
interface Report {
  ruleId: string;
  messageId: string;
  range: [number, number];
  named?: string | undefined;
}

/**
 * The preset's rules whose report is more than the secret, by `rule/messageId` (read from the
 * preset's source; every other rule reports exactly its token). A pattern finds the secret in the
 * reported text as its `v` group; `null`: the text the message names is the secret. None of these
 * secrets starts with an issuer prefix (as `ghp_` or `AKIA` do), so their mask keeps nothing.
 * - AWSSecretAccessKey: the range starts at the `AWS_SECRET_ACCESS_KEY=` label and has the key's
 *   length (it ends inside the key); the message names the 40-character key.
 * - AWSAccountID: label, connector, quotes and the 12 digits.
 * - PrivateKey: the whole PEM block; the secret is its base64 body.
 * - BasicAuth and the connection strings: the whole URL; the secret is its `user:password`.
 * - Slack IncomingWebhook: the whole URL; the secret is its `T…/B…/…` path.
 * - npm's `_authToken=` and x-oauth rules report like AWSSecretAccessKey; they only read
 *   `.npmrc` / `package.json` files, never a body, and are listed should that change.
 */
const CREDENTIALS_IN_URL = /^[^/\s]*:\/\/(?<v>[^:/\s]+:[^@/\s]+)@/d;
const LABELLED: Record<string, RegExp | null> = {
  'aws/AWSSecretAccessKey': null,
  'aws/AWSAccountID': /(?<v>\d{4}-?\d{4}-?\d{4})["']?$/d,
  'privatekey/PrivateKey': /^-----BEGIN[^\n]*?-----(?<v>[\s\S]+?)-----END/d,
  'basicauth/BasicAuth': CREDENTIALS_IN_URL,
  'database-connection-string/MongoDBConnection': CREDENTIALS_IN_URL,
  'database-connection-string/MySQLConnection': CREDENTIALS_IN_URL,
  'database-connection-string/PostgreSQLConnection': CREDENTIALS_IN_URL,
  'slack/IncomingWebhook': /\/services\/(?<v>\S+)$/di,
  'npm/Npmrc_authToken': null,
  'npm/PackageJSON_xOauthToken': null,
};

/** Whitespace and JSON escapes (`\n`) around a PEM body are not the key. */
const LEAD = /^(?:\s|\\[nrt])*/;
const TRAIL = /(?:\s|\\[nrt])*$/;

/**
 * Where the secret of a report lies. The text the message names is looked for from the range's
 * start (so a range that starts at a label, or ends early, still finds the whole secret); a
 * labelled rule's pattern then narrows it to the secret. When a pattern does not fit (a preset
 * update changed a rule's shape), the whole reported text is taken: masking too much is safe.
 */
function locate(text: string, r: Report): { start: number; end: number; prefixed: boolean } {
  let [start, end] = r.range;
  if (r.named) {
    const at = text.indexOf(r.named, start);
    if (at >= 0 && at <= end) [start, end] = [at, at + r.named.length];
  }
  const key = `${r.ruleId}/${r.messageId}`;
  if (!(key in LABELLED)) return { start, end, prefixed: true };
  const v = LABELLED[key]?.exec(text.slice(start, end))?.indices?.groups?.v;
  if (v) [start, end] = [start + v[0], start + v[1]];
  if (r.ruleId === 'privatekey') {
    const body = text.slice(start, end);
    const lead = LEAD.exec(body)![0].length;
    [start, end] = [start + lead, Math.max(start + lead, end - TRAIL.exec(body)![0].length)];
  }
  return { start, end, prefixed: false };
}

/** The fingerprinted value: a PEM body wrapped or escaped differently is the same key. */
const normalise = (ruleId: string, v: string) => (ruleId === 'privatekey' ? v.replace(/\s|\\[nrt]/g, '') : v);

/** The props a rule's message names its find by (not `typeName`, nor gcp's `FILE_NAME`). */
const NAMED = ['KEY', 'TOKEN', 'ID', 'URI', 'CREDENTIAL', 'URL'];
const namedIn = (props: Record<string, unknown> | undefined) =>
  NAMED.map((k) => props?.[k]).find((v): v is string => typeof v === 'string' && v.length > 0);

/**
 * The preset's rules are driven directly with the small context they use (a translator and
 * `report`), not through @secretlint/core: its profiler keeps every performance mark it ever made
 * and searches them on each one, which grows without bound in a long-running worker. The comment
 * filter rule (`secretlint-disable` comments in source files) does not apply to bodies.
 */
function createRules(preset: Preset) {
  const options: Record<string, object> = { aws: { enableIDScanRule: true } };
  let found: Report[] = [];
  const handlers = preset.rules
    .map((rule: Rule) => ({ rule, id: rule.meta.id.replace(/^@secretlint\/secretlint-rule-/, '') }))
    .filter(({ id }) => id !== 'filter-comments')
    .map(({ rule, id }) => {
      const context = {
        createTranslator: () => (messageId: string, props?: Record<string, unknown>) => ({
          messageId,
          named: namedIn(props),
        }),
        report: (d: { message: { messageId: string; named?: string }; range: [number, number] }) =>
          found.push({ ruleId: id, messageId: d.message.messageId, range: d.range, named: d.message.named }),
      };
      return (rule.create as (c: unknown, o: object) => Handler)(context, options[id] ?? {});
    });
  const once = async (content: string) => {
    found = [];
    const source = { filePath: 'body.txt', content, ext: '.txt', contentType: 'text' };
    for (const h of handlers) await h.file?.(source);
    return found;
  };
  // The handlers report into one list: scans take turns.
  let turn: Promise<unknown> = Promise.resolve();
  return (content: string) => {
    const result = turn.then(() => once(content));
    turn = result.catch(() => undefined);
    return result;
  };
}

/** secretlint is ESM-only: loaded once, on the first scan, by the detector that owns it. */
export function createSecretDetector(): SecretDetector {
  let loading: Promise<(content: string) => Promise<Report[]>> | undefined;
  const load = () => (loading ??= import('@secretlint/secretlint-rule-preset-recommend').then(createRules));
  return {
    async detect(text) {
      const run = await load();
      const out: Detection[] = [];
      for (const m of await run(text)) {
        const { start, end, prefixed } = locate(text, m);
        const value = text.slice(start, end);
        if (!value) continue;
        const category = m.ruleId;
        out.push({
          kind: 'secret',
          category,
          severity: SEVERITY[category] ?? 'high',
          detector: `secretlint:${category}/${m.messageId}`,
          start,
          end,
          value: normalise(category, value),
          masked: maskSecret(value, prefixed),
        });
      }
      for (const e of EXTRA) {
        for (const m of text.matchAll(e.pattern)) {
          if (e.check && !e.check(m[0])) continue;
          out.push({
            kind: 'secret',
            category: e.category,
            severity: SEVERITY[e.category] ?? 'high',
            detector: `pattern:${e.category}`,
            start: m.index,
            end: m.index + m[0].length,
            value: m[0],
            masked: maskSecret(m[0], true),
          });
        }
      }
      return out;
    },
  };
}
