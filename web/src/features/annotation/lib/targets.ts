import type { Targets } from '../hooks/useAnnotation';

/** What a person picks as a campaign's items: recent traffic by a filter, or ids pasted from elsewhere. */
export interface TargetValues {
  mode: 'recent' | 'ids';
  kind: 'requests' | 'traces';
  hours: string;
  limit: string;
  model: string;
  ids: string;
  idKind: 'request' | 'trace' | 'session';
}

export const TARGET_DEFAULTS: TargetValues = {
  mode: 'recent',
  kind: 'requests',
  hours: '24',
  limit: '100',
  model: '',
  ids: '',
  idKind: 'request',
};
export const MAX_IDS = 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Pasted ids: one per line, or separated by commas or spaces; duplicates dropped, order kept. */
export const parseIds = (text: string) => [...new Set(text.split(/[\s,]+/).filter(Boolean))];

/** Why the picked targets cannot be sent (shown under the field), or null. */
export function targetsError(v: TargetValues): { field: keyof TargetValues; message: string } | null {
  if (v.mode === 'recent') {
    const n = Number(v.limit);
    return Number.isInteger(n) && n >= 1 && n <= 10_000 ? null : { field: 'limit', message: 'From 1 to 10,000' };
  }
  const ids = parseIds(v.ids);
  if (!ids.length) return { field: 'ids', message: 'Paste at least one id' };
  if (ids.length > MAX_IDS) return { field: 'ids', message: `At most ${MAX_IDS.toLocaleString('en-US')} ids at once` };
  // Request ids are UUIDs; trace and session ids are the caller's own strings.
  const bad = v.idKind === 'request' ? ids.find((id) => !UUID.test(id)) : ids.find((id) => id.length > 128);
  if (!bad) return null;
  return { field: 'ids', message: `Not a ${v.idKind} id: ${bad.length > 40 ? `${bad.slice(0, 40)}…` : bad}` };
}

/** The API's `targets`: the newest matching calls or traces of the last hours, or the pasted ids. */
export function toTargets(v: TargetValues, now = new Date()): Targets {
  if (v.mode === 'ids') {
    const ids = parseIds(v.ids);
    if (v.idKind === 'request') return { items: ids.map((request_id) => ({ request_id })) };
    if (v.idKind === 'trace') return { items: ids.map((trace_id) => ({ trace_id })) };
    return { items: ids.map((session_id) => ({ session_id })) };
  }
  const from = new Date(now.getTime() - Number(v.hours) * 3600_000).toISOString();
  const window = { from, to: now.toISOString(), limit: Number(v.limit) };
  const model = v.model.trim();
  if (v.kind === 'traces') return { source: { kind: 'traces', ...window } };
  return { source: { kind: 'requests', ...window, ...(model ? { filter: { model } } : {}) } };
}

/** "12 calls of the last 24 hours", "3 pasted trace ids": what the campaign will hold, in words. */
export function describeTargets(v: TargetValues): string {
  if (v.mode === 'ids') {
    const n = parseIds(v.ids).length;
    return `${n.toLocaleString('en-US')} pasted ${v.idKind} id${n === 1 ? '' : 's'}`;
  }
  const range = RANGES.find((r) => r.value === v.hours)?.label ?? `the last ${v.hours} hours`;
  return `up to ${Number(v.limit).toLocaleString('en-US')} ${v.kind === 'requests' ? 'calls' : 'traces'} of ${range}`;
}

export const RANGES = [
  { value: '1', label: 'the last hour' },
  { value: '24', label: 'the last 24 hours' },
  { value: '168', label: 'the last 7 days' },
  { value: '720', label: 'the last 30 days' },
];

/** Mantine form validation of the targets: the error on the field it is about. */
export const validateTargets = (v: TargetValues) => {
  const e = targetsError(v);
  return e ? { [e.field]: e.message } : {};
};
