import { findPhoneNumbersInText } from 'libphonenumber-js';
import validator from 'validator';
import { maskDigits, maskEmail, maskIban } from './mask';
import type { Detection, Severity } from './types';

/**
 * Personal data, each candidate confirmed by a check where one exists: cards by issuer prefix and
 * Luhn (validator), IBANs by country length and mod-97 (validator), phone numbers by the numbering
 * plan (libphonenumber-js), Spanish DNI by its check letter (validator); US SSNs by the ranges the
 * SSA never issues. Phone numbers must be written as phone numbers (a `+`, brackets or separators),
 * so counters and timestamps in JSON are not phones.
 */
interface Rule {
  category: string;
  severity: Severity;
  detector: string;
  pattern: RegExp;
  check: (v: string) => boolean;
  mask: (v: string) => string;
}

const digits = (v: string) => v.replace(/[^0-9]/g, '');

const RULES: Rule[] = [
  {
    category: 'iban',
    severity: 'medium',
    detector: 'pii:iban+mod97',
    pattern: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b/g,
    check: (v) => validator.isIBAN(v.replace(/ /g, '')),
    mask: maskIban,
  },
  {
    category: 'credit_card',
    severity: 'high',
    detector: 'pii:card+luhn',
    // A number starts a word: a token's last digit before it (`ghp_…8 4111 1111 …`) would make a
    // longer run that fails Luhn and hides the card.
    pattern: /(?<![A-Za-z0-9_-])\d(?:[ -]?\d){12,18}(?![\d-])/g,
    check: (v) => validator.isCreditCard(digits(v)),
    mask: (v) => maskDigits(v, 4),
  },
  {
    category: 'us_ssn',
    severity: 'high',
    detector: 'pii:us_ssn',
    pattern: /(?<![\d-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\d-])/g,
    check: () => true,
    mask: (v) => maskDigits(v, 4),
  },
  {
    category: 'es_dni',
    severity: 'high',
    detector: 'pii:es_dni+check_letter',
    pattern: /(?<![A-Za-z0-9])\d{8}-?[A-HJ-NP-TV-Z](?![A-Za-z0-9])/g,
    check: (v) => validator.isIdentityCard(v.replace('-', ''), 'ES'),
    mask: (v) => `${'*'.repeat(v.length - 1)}${v.slice(-1)}`,
  },
  {
    category: 'email',
    severity: 'low',
    detector: 'pii:email',
    pattern: /[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})*\.[A-Za-z]{2,24}/g,
    check: (v) => validator.isEmail(v),
    mask: maskEmail,
  },
];

export function detectPii(text: string): Detection[] {
  const out: Detection[] = [];
  for (const r of RULES) {
    for (const m of text.matchAll(r.pattern)) {
      if (!r.check(m[0])) continue;
      // An IBAN's account digits can pass Luhn: inside a valid IBAN they are the IBAN.
      if (
        r.category === 'credit_card' &&
        out.some((o) => o.category === 'iban' && o.start < m.index + m[0].length && m.index < o.end)
      )
        continue;
      out.push({
        kind: 'pii',
        category: r.category,
        severity: r.severity,
        detector: r.detector,
        start: m.index,
        end: m.index + m[0].length,
        value: r.category === 'email' ? m[0].toLowerCase() : digitsOr(m[0], r.category),
        masked: r.mask(m[0]),
      });
    }
  }
  // Cheap gate: the phone parser only runs on text with a run of 7+ digits and separators.
  if (/\d[\d ().-]{6,}\d/.test(text)) {
    for (const p of findPhoneNumbersInText(text, { defaultCountry: 'US' })) {
      const raw = text.slice(p.startsAt, p.endsAt);
      if (!/[+() .-]/.test(raw) || !p.number.isValid()) continue;
      out.push({
        kind: 'pii',
        category: 'phone',
        severity: 'low',
        detector: 'pii:phone',
        start: p.startsAt,
        end: p.endsAt,
        value: p.number.number,
        masked: maskDigits(raw, 2),
      });
    }
  }
  return out;
}

/** The fingerprinted value: the same card written with or without spaces is one finding. */
function digitsOr(v: string, category: string): string {
  if (category === 'iban') return v.replace(/ /g, '');
  if (category === 'es_dni') return v.replace('-', '');
  return digits(v);
}
