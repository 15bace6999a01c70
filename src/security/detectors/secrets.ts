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
  aws: 'critical', gcp: 'critical', privatekey: 'critical', 'database-connection-string': 'critical', stripe: 'critical',
  openai: 'critical', anthropic: 'critical', 'hashicorp-vault': 'critical', '1password': 'critical', jwt: 'medium', basicauth: 'high',
};

const EXTRA: { category: string; pattern: RegExp; check?: (v: string) => boolean }[] = [
  { category: 'stripe', pattern: /(?<![A-Za-z0-9_])(?:sk|rk)_live_[0-9A-Za-z]{24,99}(?![A-Za-z0-9_])/g },
  { category: 'google_api_key', pattern: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/g },
  { category: 'jwt', pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}(?![A-Za-z0-9_-])/g, check: jwtHeaderNamesAlg },
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

/**
 * The preset's rules are driven directly with the small context they use (a translator and
 * `report`), not through @secretlint/core: its profiler keeps every performance mark it ever made
 * and searches them on each one, which grows without bound in a long-running worker. The comment
 * filter rule (`secretlint-disable` comments in source files) does not apply to bodies.
 */
function createRules(preset: Preset) {
  const options: Record<string, object> = { aws: { enableIDScanRule: true } };
  let found: { ruleId: string; messageId: string; range: [number, number] }[] = [];
  const handlers = preset.rules
    .map((rule: Rule) => ({ rule, id: rule.meta.id.replace(/^@secretlint\/secretlint-rule-/, '') }))
    .filter(({ id }) => id !== 'filter-comments')
    .map(({ rule, id }) => {
      const context = {
        createTranslator: () => (messageId: string) => ({ messageId }),
        report: (d: { message: { messageId: string }; range: [number, number] }) => found.push({ ruleId: id, messageId: d.message.messageId, range: d.range }),
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
  let loading: Promise<(content: string) => Promise<{ ruleId: string; messageId: string; range: [number, number] }[]>> | undefined;
  const load = () => (loading ??= import('@secretlint/secretlint-rule-preset-recommend').then(createRules));
  return {
    async detect(text) {
      const run = await load();
      const out: Detection[] = [];
      for (const m of await run(text)) {
        const [start, end] = m.range;
        const value = text.slice(start, end);
        if (!value) continue;
        const category = m.ruleId;
        out.push({ kind: 'secret', category, severity: SEVERITY[category] ?? 'high', detector: `secretlint:${category}/${m.messageId}`, start, end, value, masked: maskSecret(value) });
      }
      for (const e of EXTRA) {
        for (const m of text.matchAll(e.pattern)) {
          if (e.check && !e.check(m[0])) continue;
          out.push({ kind: 'secret', category: e.category, severity: SEVERITY[e.category] ?? 'high', detector: `pattern:${e.category}`, start: m.index, end: m.index + m[0].length, value: m[0], masked: maskSecret(m[0]) });
        }
      }
      return out;
    },
  };
}
