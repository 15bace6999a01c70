import type { Detection } from './types';

/**
 * Prompt-injection and jailbreak markers. npm has no maintained phrase corpus or classifier
 * package (checked: llm-guard 0.1.x, rebuff 0.0.x are thin clients), so this is a documented,
 * tested heuristic set (docs/security.md): weighted phrases, one finding when the weights of a
 * text's markers reach 3; `high` from 5. A phrase preceded by a negation ("never reveal your
 * system prompt", a system prompt's own rule) does not count.
 */
interface Marker {
  category: string;
  weight: number;
  pattern: RegExp;
}

const ANY = '(?:all |any |the |your |my |these |those )?';
const MARKERS: Marker[] = [
  {
    category: 'instruction_override',
    weight: 3,
    pattern: new RegExp(
      `\\b(?:ignore|disregard|forget|override) ${ANY}` +
        '(?:previous|prior|above|earlier|preceding|original|system) ' +
        '(?:instructions?|prompts?|rules|directions|guidelines|context)',
      'gi',
    ),
  },
  {
    category: 'instruction_override',
    weight: 2,
    pattern: /\bforget (?:everything|all)(?: (?:you were|you've been|you have been) told| above| before)?\b/gi,
  },
  { category: 'instruction_override', weight: 1, pattern: /\bnew (?:system )?instructions\s*:/gi },
  {
    category: 'system_prompt_extraction',
    weight: 3,
    pattern: new RegExp(
      `\\b(?:reveal|print|show|repeat|output|leak|tell me) ${ANY}` +
        '(?:system prompt|initial (?:prompt|instructions)|hidden (?:prompt|instructions)|instructions above)',
      'gi',
    ),
  },
  {
    category: 'jailbreak',
    weight: 3,
    pattern: new RegExp(
      '\\b(?:you are now|act as|pretend to be) ' +
        '(?:DAN|a DAN|an? (?:unrestricted|unfiltered|uncensored|jailbroken) (?:AI|model|assistant))\\b',
      'gi',
    ),
  },
  { category: 'jailbreak', weight: 3, pattern: /\bdo anything now\b/gi },
  { category: 'jailbreak', weight: 2, pattern: /\b(?:developer|god|jailbreak) mode (?:enabled|activated|on)\b/gi },
  {
    category: 'jailbreak',
    weight: 2,
    pattern: new RegExp(
      '\\b(?:without|no|free of) (?:any )?' +
        '(?:restrictions|filters|guidelines|content polic(?:y|ies)|ethical (?:guidelines|constraints))\\b',
      'gi',
    ),
  },
  {
    category: 'jailbreak',
    weight: 2,
    // A template, not a regex literal: `${ANY}` in a literal is an end anchor and text, so it never matched.
    pattern: new RegExp(
      `\\b(?:bypass|disable|turn off) ${ANY}(?:safety|content) (?:filters?|polic(?:y|ies)|guidelines)\\b`,
      'gi',
    ),
  },
  { category: 'role_tag_injection', weight: 2, pattern: /<\|im_start\|>\s*system|<\|system\|>|\[\/?INST\]|<<SYS>>/g },
];
const NEGATED = /\b(?:never|not|don't|do not|must not|won't|refuse to|cannot|can't)\s+(?:\w+\s+){0,2}$/i;

export function detectInjection(text: string): Detection[] {
  const hits: { m: Marker; start: number; end: number; phrase: string }[] = [];
  for (const m of MARKERS) {
    for (const x of text.matchAll(m.pattern)) {
      if (NEGATED.test(text.slice(Math.max(0, x.index - 40), x.index))) continue;
      hits.push({ m, start: x.index, end: x.index + x[0].length, phrase: x[0] });
    }
  }
  const score = hits.reduce((s, h) => s + h.m.weight, 0);
  if (score < 3) return [];
  // One finding per text, named after its strongest marker; the phrase set is the fingerprint.
  const top = hits.reduce((a, b) => (b.m.weight > a.m.weight ? b : a));
  const phrases = [...new Set(hits.map((h) => h.phrase.toLowerCase().replace(/\s+/g, ' ')))].sort();
  return [
    {
      kind: 'prompt_injection',
      category: top.m.category,
      severity: score >= 5 ? 'high' : 'medium',
      detector: `heuristic:score=${score}`,
      start: top.start,
      end: top.end,
      value: phrases.join(' | '),
      masked: top.phrase.slice(0, 120),
    },
  ];
}
