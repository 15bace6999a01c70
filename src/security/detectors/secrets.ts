import type { Detection, Severity } from './types';
import { maskSecret } from './mask';

/**
 * Leaked secrets: the secretlint recommended preset (a maintained corpus: AWS, GCP, GitHub,
 * GitLab, Slack, npm, OpenAI, Anthropic, private keys, connection strings, …) plus the formats it
 * does not cover: Stripe live keys, Google API keys and JWTs (whose header must decode to JSON
 * naming an `alg`, so a look-alike base64 string does not match).
 */
type SecretlintCore = typeof import('@secretlint/core', { with: { 'resolution-mode': 'import' } });
type Preset = typeof import('@secretlint/secretlint-rule-preset-recommend', { with: { 'resolution-mode': 'import' } });

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

/** secretlint is ESM-only: loaded once, on the first scan, by the detector that owns it. */
export function createSecretDetector(): SecretDetector {
  let loading: Promise<[SecretlintCore, Preset]> | undefined;
  const load = () => (loading ??= Promise.all([import('@secretlint/core'), import('@secretlint/secretlint-rule-preset-recommend')]));
  return {
    async detect(text) {
      const [core, preset] = await load();
      const result = await core.lintSource({
        source: { filePath: 'body.txt', content: text, ext: '.txt', contentType: 'text' },
        options: {
          config: {
            rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: preset.creator, rules: [{ id: '@secretlint/secretlint-rule-aws', options: { enableIDScanRule: true } }] }],
          },
          maskSecrets: false,
        },
      });
      const out: Detection[] = [];
      for (const m of result.messages) {
        const [start, end] = m.range;
        const value = text.slice(start, end);
        if (!value) continue;
        const category = m.ruleId.replace(/^@secretlint\/secretlint-rule-/, '');
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
