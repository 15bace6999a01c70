/**
 * Token estimation for answers whose provider reported no usage (e.g. an OpenAI stream
 * without `stream_options.include_usage`). Uses gpt-tokenizer's o200k_base encoding: exact for
 * current OpenAI models, a close estimate for the rest. The encoding costs ~70 MB and most of a
 * second to load, so it is loaded on first use (or at start-up with PROXY_TOKENIZER_PRELOAD).
 */
type CountFn = (text: string) => number;
let countTokensFn: CountFn | undefined;

function load(): CountFn {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require('gpt-tokenizer/encoding/o200k_base') as {
    countTokens: (t: string, o: { disallowedSpecial: Set<string> }) => number;
  };
  // Text from callers may contain special-token strings such as <|endoftext|>: count, don't throw.
  const opts = { disallowedSpecial: new Set<string>() };
  countTokensFn = (t) => mod.countTokens(t, opts);
  return countTokensFn;
}

export function preloadTokenizer(): void {
  if (!countTokensFn) load();
}

export function countTokens(text: string): number {
  if (!text) return 0;
  return (countTokensFn ?? load())(text);
}

const PROMPT_KEYS = new Set(['content', 'text', 'system', 'prompt', 'input', 'instructions', 'arguments']);

/**
 * The prompt text of a request body in any of the providers' shapes: the string values under
 * keys such as messages[].content, contents[].parts[].text, system, prompt or input.
 */
export function promptText(body: unknown): string {
  const out: string[] = [];
  const walk = (v: unknown, key: string | null, depth: number) => {
    if (depth > 32) return;
    if (typeof v === 'string') {
      if (key !== null && PROMPT_KEYS.has(key)) out.push(v);
      return;
    }
    if (Array.isArray(v)) {
      for (const x of v) walk(x, key, depth + 1);
      return;
    }
    if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) walk(x, k, depth + 1);
    }
  };
  walk(body, null, 0);
  return out.join('\n');
}
