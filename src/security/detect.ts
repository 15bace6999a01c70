import { createHmac } from 'node:crypto';
import type { Keyring } from '../auth/crypto';
import { detectInjection } from './detectors/injection';
import { detectPii } from './detectors/pii';
import { createSecretDetector } from './detectors/secrets';
import { severityRank, type Detection } from './detectors/types';

/** One scanned field: a stored body (text) or span/trace input or output (JSON). */
export interface Field {
  name: string;
  direction: 'in' | 'out';
  value: unknown;
}
export interface Found extends Detection {
  field: string;
  direction: 'in' | 'out';
  excerpt: string;
  /** HMAC under each key of the ring, current first: a finding stored before a key rotation still matches. */
  fingerprints: string[];
}

const CONTEXT = 32;
/** Bodies larger than this are scanned on their first MAX_CHARS characters. */
const MAX_CHARS = 256 * 1024;

/**
 * The text a detector reads: JSON's string values one per line (so an escaped private key has its
 * real newlines back and the JSON syntax around a value is no part of it); other text as is.
 */
export function textOf(value: unknown): string {
  let v = value;
  if (typeof v === 'string') {
    const s = v.trimStart();
    if (!(s.startsWith('{') || s.startsWith('['))) return v.slice(0, MAX_CHARS);
    try {
      v = JSON.parse(v);
    } catch {
      return (v as string).slice(0, MAX_CHARS);
    }
  }
  const out: string[] = [];
  let size = 0;
  const walk = (x: unknown): void => {
    if (size > MAX_CHARS) return;
    if (typeof x === 'string') {
      out.push(x);
      size += x.length + 1;
    } else if (Array.isArray(x)) x.forEach(walk);
    else if (x && typeof x === 'object') Object.values(x).forEach(walk);
  };
  walk(v);
  return out.join('\n').slice(0, MAX_CHARS);
}

/**
 * Overlapping matches keep the most severe (then the longest): the e-mail inside a connection string is the connection
 * string.
 */
function dedupe(ds: Detection[]): Detection[] {
  const sorted = [...ds].sort(
    (a, b) => severityRank(b.severity) - severityRank(a.severity) || b.end - b.start - (a.end - a.start),
  );
  const kept: Detection[] = [];
  for (const d of sorted) if (!kept.some((k) => d.start < k.end && k.start < d.end)) kept.push(d);
  return kept.sort((a, b) => a.start - b.start);
}

/**
 * What an excerpt must never show of a detection: a secret whole, and past its end over the
 * characters that may continue a token (base64, base64url, its own symbols), so a rule whose match
 * stops short of the real token (the AWS key's 40 characters end on a word boundary, which a `/`
 * after them is) cannot leave the token's rest in the context. Matches are anchored at a prefix or
 * a label, so only their end can fall short. Personal data: what its mask hides (an e-mail's
 * domain stays, as in its mask).
 */
function hiddenSpan(text: string, d: Detection): [number, number] {
  if (d.kind === 'pii')
    return [
      d.start,
      d.category === 'email' ? d.start + Math.max(1, text.lastIndexOf('@', d.end - 1) - d.start) : d.end,
    ];
  const own = new Set(text.slice(d.start, d.end).replace(/\s/g, ''));
  let end = d.end;
  while (end < text.length && (/[A-Za-z0-9_+/=-]/.test(text[end]!) || own.has(text[end]!))) end++;
  return [d.start, end];
}

/** One flag per character of the text: 1 where an excerpt must not show it (see hiddenSpan). */
function hiddenMask(text: string, ds: Detection[]): Uint8Array {
  const mask = new Uint8Array(text.length);
  for (const d of ds) mask.fill(1, ...hiddenSpan(text, d));
  return mask;
}

/**
 * The match with up to CONTEXT characters each side, on one line. The detections kept after
 * overlaps (`shown`) appear as their masks; any other character of any detection found in the text
 * (`hidden`, from hiddenMask: overlapped ones included, a secret's continuation) is a `*`, so no
 * part of a value shows whichever finding's excerpt it falls in.
 */
function excerptOf(text: string, d: Detection, shown: Detection[], hidden: Uint8Array): string {
  const others = shown.filter((o) => o !== d && !(o.start < d.end && d.start < o.end));
  let from = Math.max(0, d.start - CONTEXT);
  let to = Math.min(text.length, d.end + CONTEXT);
  for (const o of others) {
    if (o.start < from && o.end > from) from = Math.min(o.end, d.start);
    if (o.start < to && o.end > to) to = Math.max(o.start, d.end);
  }
  const plain = (a: number, b: number) => {
    let s = '';
    for (let i = a; i < b; i++) s += hidden[i] ? '*' : text[i];
    return s;
  };
  // An injection's phrase is shown as written (it holds no value; `plain` stars any that overlaps it).
  const masks = [...others, ...(d.kind === 'prompt_injection' ? [] : [d])]
    .filter((x) => x.start >= from && x.end <= to)
    .sort((a, b) => a.start - b.start);
  let s = '';
  let at = from;
  for (const o of masks) {
    s += plain(at, o.start) + o.masked;
    at = o.end;
  }
  s += plain(at, to);
  return `${from > 0 ? '…' : ''}${s.replace(/\s+/g, ' ')}${to < text.length ? '…' : ''}`;
}

export interface Detector {
  scan(fields: Field[]): Promise<Found[]>;
}

export function createDetector(keyring: Keyring): Detector {
  const secrets = createSecretDetector();
  const keys = [
    keyring.keys.get(keyring.currentId)!,
    ...[...keyring.keys].filter(([id]) => id !== keyring.currentId).map(([, k]) => k),
  ];
  const fingerprints = (d: Detection) =>
    keys.map((k) =>
      createHmac('sha256', k).update(`security-finding\0${d.kind}\0${d.category}\0${d.value}`).digest('base64url'),
    );
  return {
    async scan(fields) {
      const out: Found[] = [];
      for (const f of fields) {
        if (f.value === null || f.value === undefined || f.value === '') continue;
        const text = textOf(f.value);
        if (!text) continue;
        const all = [...(await secrets.detect(text)), ...detectPii(text)];
        const shown = dedupe(all);
        const hidden = hiddenMask(text, all);
        const injections = f.direction === 'in' ? detectInjection(text) : [];
        for (const d of [...shown, ...injections]) {
          out.push({
            ...d,
            field: f.name,
            direction: f.direction,
            excerpt: excerptOf(text, d, shown, hidden),
            fingerprints: fingerprints(d),
          });
        }
      }
      return out;
    },
  };
}
