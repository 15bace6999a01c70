import { createHmac } from 'node:crypto';
import type { Keyring } from '../keys/crypto';
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
export const MAX_CHARS = 256 * 1024;

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

/** Overlapping matches keep the most severe (then the longest): the e-mail inside a connection string is the connection string. */
function dedupe(ds: Detection[]): Detection[] {
  const sorted = [...ds].sort((a, b) => severityRank(b.severity) - severityRank(a.severity) || b.end - b.start - (a.end - a.start));
  const kept: Detection[] = [];
  for (const d of sorted) if (!kept.some((k) => d.start < k.end && k.start < d.end)) kept.push(d);
  return kept.sort((a, b) => a.start - b.start);
}

/** The match with up to CONTEXT characters each side, every detection in it masked, on one line. */
export function excerptOf(text: string, d: Detection, all: Detection[]): string {
  const others = all.filter((o) => o !== d && !(o.start < d.end && d.start < o.end));
  let from = Math.max(0, d.start - CONTEXT);
  let to = Math.min(text.length, d.end + CONTEXT);
  for (const o of others) {
    if (o.start < from && o.end > from) from = Math.min(o.end, d.start);
    if (o.start < to && o.end > to) to = Math.max(o.start, d.end);
  }
  let s = '';
  let at = from;
  for (const o of [...others, d].filter((x) => x.start >= from && x.end <= to).sort((a, b) => a.start - b.start)) {
    s += text.slice(at, o.start) + o.masked;
    at = o.end;
  }
  s += text.slice(at, to);
  return `${from > 0 ? '…' : ''}${s.replace(/\s+/g, ' ')}${to < text.length ? '…' : ''}`;
}

export interface Detector {
  scan(fields: Field[]): Promise<Found[]>;
}

export function createDetector(keyring: Keyring): Detector {
  const secrets = createSecretDetector();
  const keys = [keyring.keys.get(keyring.currentId)!, ...[...keyring.keys].filter(([id]) => id !== keyring.currentId).map(([, k]) => k)];
  const fingerprints = (d: Detection) => keys.map((k) => createHmac('sha256', k).update(`security-finding\0${d.kind}\0${d.category}\0${d.value}`).digest('base64url'));
  return {
    async scan(fields) {
      const out: Found[] = [];
      for (const f of fields) {
        if (f.value === null || f.value === undefined || f.value === '') continue;
        const text = textOf(f.value);
        if (!text) continue;
        const masked = dedupe([...(await secrets.detect(text)), ...detectPii(text)]);
        const injections = f.direction === 'in' ? detectInjection(text) : [];
        for (const d of [...masked, ...injections]) {
          out.push({ ...d, field: f.name, direction: f.direction, excerpt: excerptOf(text, d, masked), fingerprints: fingerprints(d) });
        }
      }
      return out;
    },
  };
}
