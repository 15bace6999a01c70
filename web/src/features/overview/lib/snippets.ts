/**
 * Working first-call snippets for the first-run guide, with the gateway's real address and a
 * placeholder key (a full-scope project key from Settings → API keys).
 */
export const PLACEHOLDER_KEY = 'sl_live_YOUR_PROJECT_KEY';

export interface Snippet {
  id: 'openai' | 'anthropic' | 'otlp' | 'sdk';
  label: string;
  language: string;
  code: string;
}

export function snippets(origin: string): Snippet[] {
  return [
    {
      id: 'openai',
      label: 'OpenAI',
      language: 'TypeScript',
      code: `import OpenAI from 'openai';

const openai = new OpenAI({
  apiKey: '${PLACEHOLDER_KEY}',
  baseURL: '${origin}/proxy/openai/v1',
});

const reply = await openai.chat.completions.create({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: 'Hello from my first call' }],
});
console.log(reply.choices[0].message.content);`,
    },
    {
      id: 'anthropic',
      label: 'Anthropic',
      language: 'TypeScript',
      code: `import Anthropic from '@anthropic-ai/sdk';

const anthropic = new Anthropic({
  apiKey: '${PLACEHOLDER_KEY}',
  baseURL: '${origin}/proxy/anthropic',
});

const reply = await anthropic.messages.create({
  model: 'claude-sonnet-4-5',
  max_tokens: 256,
  messages: [{ role: 'user', content: 'Hello from my first call' }],
});
console.log(reply.content);`,
    },
    {
      id: 'otlp',
      label: 'OTLP',
      language: 'shell',
      code: `# Any OpenTelemetry SDK or collector: spans arrive as traces.
export OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="${origin}/v1/traces"
export OTEL_EXPORTER_OTLP_TRACES_HEADERS="Authorization=Bearer%20${PLACEHOLDER_KEY}"
export OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="http/protobuf"`,
    },
    {
      id: 'sdk',
      label: 'TypeScript SDK',
      language: 'TypeScript',
      code: `import OpenAI from 'openai';
import { GatewayClient, wrapOpenAI } from '@llm-gateway/sdk';

const gateway = new GatewayClient({ baseUrl: '${origin}', apiKey: '${PLACEHOLDER_KEY}' });
const openai = wrapOpenAI(new OpenAI(), gateway);

await gateway.withTrace({ name: 'first-run' }, () =>
  openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] }),
);
await gateway.shutdown();`,
    },
  ];
}
