/**
 * Seeded generators of valid secrets and personal data for the leak property test: one per rule of
 * the secretlint recommended preset that scans a body (gcp reads `.json`/`.p12` files and npm's
 * `_authToken`/x-oauth rules `.npmrc`/`package.json` files, none of which a body is), the
 * detector's own patterns, and the PII kinds. Each case says which part must never be shown
 * (`secret`) and how it may be written (`forms`); a rule that needs a label gets it in every form.
 */
export type Rng = () => number;

/** mulberry32: small, fast and reproducible from its seed. */
export function seeded(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = UPPER + LOWER + DIGITS;
const HEX = '0123456789abcdef';
const B64 = `${ALNUM}+/`;
const URLSAFE = `${ALNUM}_-`;

export const pick = (r: Rng, alphabet: string, n: number) =>
  Array.from({ length: n }, () => alphabet[Math.floor(r() * alphabet.length)]).join('');
const int = (r: Rng, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));

export interface Case {
  /** The finding's expected category. */
  category: string;
  /** What must never appear, 8 characters at a time, in a stored or returned finding. */
  secret: string;
  /** The ways it is written in a body (each containing `secret` or, for PII, its written form). */
  forms: string[];
}

/** A self-describing token: found anywhere, so every usual way of writing it. */
const token = (category: string, v: string): Case => ({
  category,
  secret: v,
  forms: [
    v,
    `API_TOKEN=${v}`,
    `token: ${v}`,
    `"${v}"`,
    `'${v}'`,
    `{"api_key":"${v}"}`,
    `config:\n  credentials:\n    token: ${v}\n`,
  ],
});

function awsSecret(r: Rng): string {
  // The rule ends the key on a word boundary: the last character is alphanumeric.
  return pick(r, B64, 39) + pick(r, ALNUM, 1);
}

function pem(r: Rng): Case {
  const body = `MII${pick(r, B64, 64 * 6 - 3)}`;
  const lines = body.match(/.{1,64}/g)!.join('\n');
  const block = `-----BEGIN RSA PRIVATE KEY-----\n${lines}\n-----END RSA PRIVATE KEY-----`;
  return {
    category: 'privatekey',
    secret: body,
    forms: [block, `key file:\n${block}\nend`, JSON.stringify({ private_key: block }).slice(1, -1)],
  };
}

function onePassword(r: Rng): string {
  // ops_ + base64 of a JSON object; its length ≡ 1 (mod 3), so the base64 ends `fQ==`.
  let json = JSON.stringify({
    email: `${pick(r, LOWER, 12)}@1passwordserviceaccounts.lcl`,
    secretKey: pick(r, ALNUM, 40),
    srpX: pick(r, HEX, 64),
  });
  while (json.length % 3 !== 1) json = `${json.slice(0, -1)} }`;
  return `ops_${Buffer.from(json).toString('base64')}`;
}

function iban(r: Rng): string {
  // German: DE, mod-97 check digits, 18 digits of bank code and account.
  const bban = pick(r, DIGITS, 18);
  const rest = BigInt(`${bban}131400`) % 97n; // D=13 E=14, then 00
  const check = String(98n - rest).padStart(2, '0');
  return `DE${check}${bban}`;
}

function card(r: Rng): string {
  const d = `4${pick(r, DIGITS, 14)}`;
  let sum = 0;
  for (let i = 0; i < d.length; i++) {
    let x = Number(d[d.length - 1 - i]);
    if (i % 2 === 0) x = x * 2 > 9 ? x * 2 - 9 : x * 2;
    sum += x;
  }
  return `${d}${(10 - (sum % 10)) % 10}`;
}

const b64url = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

/** Every kind, by name. */
export const KINDS: Record<string, (r: Rng) => Case> = {
  aws_access_key_id: (r) => token('aws', `AKIA${pick(r, UPPER + DIGITS, 16)}`),
  aws_secret_access_key: (r) => {
    const v = awsSecret(r);
    return {
      category: 'aws',
      secret: v,
      forms: [
        `AWS_SECRET_ACCESS_KEY=${v}`,
        `aws_secret_access_key: ${v}`,
        `{"aws_secret_access_key":"${v}"}`,
        `"AwsSecretAccessKey" => '${v}'`,
        `aws:\n  secret_access_key: ${v}\n`,
        `export AWS_SECRET_ACCESS_KEY="${v}"`,
      ],
    };
  },
  aws_account_id: (r) => {
    const v = pick(r, DIGITS, 12);
    return {
      category: 'aws',
      secret: v,
      forms: [`AWS_ACCOUNT_ID=${v}`, `aws_account_id: "${v}"`, `{"account_id":"${v}"}`],
    };
  },
  privatekey: pem,
  npm: (r) => token('npm', `npm_${pick(r, ALNUM, 36)}`),
  basicauth: (r) => {
    const v = `${pick(r, LOWER, 8)}:${pick(r, ALNUM, 14)}`;
    return {
      category: 'basicauth',
      secret: v,
      forms: [
        `https://${v}@api.corp-${pick(r, LOWER, 5)}.com/v1`,
        `URL="http://${v}@files.acme.io"`,
        `{"endpoint":"ftp://${v}@ftp.acme.io/in"}`,
      ],
    };
  },
  slack_token: (r) => token('slack', `xoxb-${pick(r, DIGITS, 12)}-${pick(r, DIGITS, 12)}-${pick(r, ALNUM, 24)}`),
  slack_webhook: (r) => {
    const v = `T${pick(r, UPPER + DIGITS, 10)}/B${pick(r, UPPER + DIGITS, 10)}/${pick(r, ALNUM, 24)}`;
    return {
      category: 'slack',
      secret: v,
      forms: [
        `https://hooks.slack.com/services/${v}`,
        `SLACK_WEBHOOK_URL="https://hooks.slack.com/services/${v}"`,
        `{"webhook":"https://hooks.slack.com/services/${v}"}`,
      ],
    };
  },
  sendgrid: (r) => token('sendgrid', `SG.${pick(r, ALNUM, 22)}.${pick(r, ALNUM, 43)}`),
  shopify: (r) => token('shopify', `shpat_${pick(r, HEX, 32)}`),
  github: (r) => token('github', `ghp_${pick(r, ALNUM, 36)}`),
  github_fine_grained: (r) => token('github', `github_pat_${pick(r, ALNUM, 82)}`),
  gitlab: (r) => token('gitlab', `glpat-${pick(r, ALNUM, 20)}`),
  grafana_cloud: (r) => token('grafana', `glc_eyJ${pick(r, ALNUM, 60)}`),
  grafana_service_account: (r) => token('grafana', `glsa_${pick(r, ALNUM, 32)}_${pick(r, HEX, 8)}`),
  openai: (r) => token('openai', `sk-${pick(r, ALNUM, 20)}T3BlbkFJ${pick(r, ALNUM, 20)}`),
  openai_project: (r) => token('openai', `sk-proj-${pick(r, URLSAFE, 74)}T3BlbkFJ${pick(r, URLSAFE, 73)}A`),
  anthropic: (r) => token('anthropic', `sk-ant-api03-${pick(r, URLSAFE, 93)}AA`),
  groq: (r) => token('groq', `gsk_${pick(r, ALNUM, 52)}`),
  huggingface: (r) => token('huggingface', `hf_${pick(r, UPPER + LOWER, 34)}`),
  linear: (r) => token('linear', `lin_api_${pick(r, ALNUM, 40)}`),
  notion: (r) => token('notion', `ntn_${pick(r, DIGITS, 11)}${pick(r, ALNUM, 35)}`),
  '1password': (r) => token('1password', onePassword(r)),
  postgres: (r) => {
    const v = `${pick(r, LOWER, 6)}:${pick(r, ALNUM, 16)}`;
    return {
      category: 'database-connection-string',
      secret: v,
      forms: [
        `DATABASE_URL=postgres://${v}@db-${pick(r, LOWER, 4)}.internal:5432/app`,
        `"postgresql://${v}@10.0.0.5/app?sslmode=require"`,
      ],
    };
  },
  mongodb: (r) => {
    const v = `${pick(r, LOWER, 6)}:${pick(r, ALNUM, 16)}`;
    return {
      category: 'database-connection-string',
      secret: v,
      forms: [`MONGO_URI=mongodb+srv://${v}@cluster0.${pick(r, LOWER, 5)}.mongodb.net/db?retryWrites=true`],
    };
  },
  mysql: (r) => {
    const v = `${pick(r, LOWER, 6)}:${pick(r, ALNUM, 16)}`;
    return {
      category: 'database-connection-string',
      secret: v,
      forms: [`jdbc:mysql://${v}@mysql.prod:3306/shop`, `{"dsn":"mysql://${v}@mysql.prod/shop"}`],
    };
  },
  hashicorp_vault: (r) => token('hashicorp-vault', `hvs.${pick(r, URLSAFE, 95)}`),
  vercel: (r) => token('vercel', `vcp_${pick(r, ALNUM, 24)}`),
  databricks: (r) => token('databricks', `dapi${pick(r, HEX, 32)}`),
  docker: (r) => token('docker', `dckr_pat_${pick(r, ALNUM, 27)}`),
  figma: (r) => token('figma', `figd_${pick(r, ALNUM, 40)}`),
  stripe: (r) => token('stripe', `sk_live_${pick(r, ALNUM, 24)}`),
  google_api_key: (r) => token('google_api_key', `AIza${pick(r, ALNUM, 35)}`),
  jwt: (r) =>
    token(
      'jwt',
      `${b64url({ alg: 'HS256', typ: 'JWT' })}.` +
        `${b64url({ sub: pick(r, DIGITS, 10), name: pick(r, LOWER, 8) })}.${pick(r, URLSAFE, 43)}`,
    ),
  credit_card: (r) => {
    const c = card(r);
    const spaced = c.match(/.{4}/g)!.join(' ');
    return { category: 'credit_card', secret: c, forms: [c, spaced, c.match(/.{4}/g)!.join('-'), `card: "${spaced}"`] };
  },
  iban: (r) => {
    const v = iban(r);
    return { category: 'iban', secret: v, forms: [v, v.match(/.{1,4}/g)!.join(' '), `IBAN: ${v}`] };
  },
  us_ssn: (r) => {
    const area = int(r, 1, 665).toString().padStart(3, '0');
    const group = int(r, 1, 99).toString().padStart(2, '0');
    const v = `${area}-${group}-${int(r, 1, 9999).toString().padStart(4, '0')}`;
    return { category: 'us_ssn', secret: v, forms: [v, `ssn: ${v}`, `{"ssn":"${v}"}`] };
  },
  es_dni: (r) => {
    const n = int(r, 10_000_000, 99_999_999);
    const v = `${n}${'TRWAGMYFPDXBNJZSQVHLCKE'[n % 23]}`;
    return { category: 'es_dni', secret: v, forms: [v, `DNI: ${v}`] };
  },
  email: (r) => {
    const local = `${pick(r, LOWER, 6)}.${pick(r, LOWER + DIGITS, 8)}`;
    // The mask keeps the first character and the domain (mask.ts): the rest of the local part is the secret.
    return {
      category: 'email',
      secret: local.slice(1),
      forms: [`${local}@example.org`, `mail: <${local}@example.org>`],
    };
  },
  phone: (r) => {
    const v = `+44 20 7${pick(r, DIGITS, 3)} ${pick(r, DIGITS, 4)}`;
    return { category: 'phone', secret: v.replace(/\D/g, '').slice(0, -2), forms: [v, `call ${v} today`] };
  },
};
