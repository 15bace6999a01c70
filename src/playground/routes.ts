import type { AppContext } from '../context';
import { HttpError } from '../http/errors';
import { route } from '../http/route';
import { createProxyPricer } from '../providers/cost';
import { playgroundAnswerSchema, playgroundBody } from './schemas';
import { runPlayground } from './service';

/** POST /api/v1/prompts/playground/run: JWT, admin or editor (each run spends the project's provider credit). */
export const playgroundRoutes = (ctx: AppContext) => {
  const deps = { db: ctx.db, keyring: ctx.keyring, config: ctx.config, pricer: createProxyPricer() };
  return [
    route({
      tag: 'Prompts',
      auth: 'jwt',
      roles: ['admin', 'editor'],
      method: 'post',
      path: '/api/v1/prompts/playground/run',
      summary:
        'Run up to 4 prompt variants (versions or inline templates, providers, models) side by side; ' +
        'streams with stream: true',
      body: playgroundBody,
      envelope: 'raw',
      rawResponses: {
        200: {
          description:
            '`{success, data: {variants}}`, or with stream: true server-sent events `delta` {variant, text}, ' +
            '`result` (a variant’s result), `done`',
          schema: playgroundAnswerSchema,
        },
      },
      scope: 'project',
      handler: async ({ scope, body, res }) => {
        if (!body.stream) {
          res.status(200).json({ success: true, data: { variants: await runPlayground(deps, scope, body) } });
          return;
        }
        const send = (event: string, data: unknown) => {
          if (!res.headersSent)
            res.writeHead(200, {
              'content-type': 'text/event-stream',
              'cache-control': 'no-cache',
              connection: 'keep-alive',
            });
          res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
        };
        try {
          await runPlayground(
            deps,
            scope,
            body,
            (variant, text) => send('delta', { variant, text }),
            (r) => send('result', r),
          );
          send('done', {});
          res.end();
        } catch (err) {
          if (!res.headersSent) throw err;
          // Mid-stream: the error travels as an event, the stream ends cleanly.
          const e =
            err instanceof HttpError
              ? { status: err.status, code: err.code, error: err.message }
              : { status: 500, code: 'internal_error', error: 'The run failed' };
          send('error', e);
          res.end();
        }
      },
    }),
  ];
};
