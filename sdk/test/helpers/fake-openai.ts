import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeOpenAI {
  url: string;
  requests: any[];
  /** Next answers: 'ok' (default), or an HTTP error status. */
  failNext(status: number, message: string): void;
  close(): Promise<void>;
}

/** A local stand-in for the OpenAI chat completions endpoint, JSON and SSE streaming. */
export async function startFakeOpenAI(): Promise<FakeOpenAI> {
  const requests: any[] = [];
  let failure: { status: number; message: string } | null = null;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url !== '/v1/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      requests.push(body);
      if (failure) {
        const { status, message } = failure;
        failure = null;
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message, type: 'invalid_request_error', code: null } }));
        return;
      }
      const lastUser = [...body.messages].reverse().find((m: { role: string }) => m.role === 'user')?.content ?? '';
      const answer = `echo: ${lastUser}`;
      const model = `${body.model}-2024-08-06`;
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_123' });
        res.end(
          JSON.stringify({
            id: 'chatcmpl-1',
            object: 'chat.completion',
            created: 1_700_000_000,
            model,
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content: answer, refusal: null },
                finish_reason: 'stop',
                logprobs: null,
              },
            ],
            usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const base = { id: 'chatcmpl-2', object: 'chat.completion.chunk', created: 1_700_000_000, model };
      const send = (chunk: object) => res.write(`data: ${JSON.stringify({ ...base, ...chunk })}\n\n`);
      send({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
      for (const piece of answer.match(/.{1,4}/gu) ?? []) {
        send({ choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
      }
      if (body.tools) {
        send({
          choices: [
            {
              index: 0,
              delta: {
                tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '' } }],
              },
              finish_reason: null,
            },
          ],
        });
        send({
          choices: [
            { index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"q":' } }] }, finish_reason: null },
          ],
        });
        send({
          choices: [
            { index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"x"}' } }] }, finish_reason: null },
          ],
        });
      }
      send({ choices: [{ index: 0, delta: {}, finish_reason: body.tools ? 'tool_calls' : 'stop' }] });
      if (body.stream_options?.include_usage) {
        send({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 } });
      }
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    failNext(status, message) {
      failure = { status, message };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
