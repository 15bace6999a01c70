import path from 'node:path';
import { z } from 'zod';
import { route, type RouteContract } from '../http/route';

// Loaded with the first GET of the document: the builder and its samplers are heap no other route needs.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily on purpose
const documentModule = () => require('./document') as typeof import('./document');

const UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS = [
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'swagger-ui-standalone-preset.js',
  'favicon-32x32.png',
] as const;

/** The reference page: Swagger UI from the swagger-ui-dist package, served by the api itself (no CDN). */
const referencePage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>LLM gateway API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/api/v1/reference/assets/swagger-ui.css">
<link rel="icon" href="/api/v1/reference/assets/favicon-32x32.png"></head>
<body><div id="swagger-ui"></div>
<script src="/api/v1/reference/assets/swagger-ui-bundle.js"></script>
<script src="/api/v1/reference/assets/swagger-ui-standalone-preset.js"></script>
<script src="/api/v1/reference/init.js"></script>
</body></html>`;
// A separate script (not inline) so the page works under a strict Content-Security-Policy.
const initScript = `window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#swagger-ui', deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });`;

/** GET /api/v1/openapi.json and the browsable reference, built from every mounted contract. */
export function openApiRoutes(allRoutes: () => RouteContract[], version: string): RouteContract[] {
  let doc: unknown;
  const documentOf = () => (doc ??= documentModule().buildOpenApiDocument(allRoutes(), { version }));
  return [
    route({
      method: 'get',
      path: '/api/v1/openapi.json',
      tag: 'Reference',
      summary: 'The OpenAPI 3.1 document of every route',
      auth: 'none',
      envelope: 'raw',
      rawResponses: {
        200: { description: 'OpenAPI 3.1 document', schema: z.object({ openapi: z.string() }).catchall(z.unknown()) },
      },
      handler: ({ res }) => {
        res.setHeader('cache-control', 'no-cache');
        res.json(documentOf());
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/reference',
      tag: 'Reference',
      summary: 'Browsable API reference (Swagger UI)',
      auth: 'none',
      envelope: 'raw',
      rawResponses: { 200: { description: 'HTML page', contentType: 'text/html', schema: z.string() } },
      handler: ({ res }) => {
        res.type('html').send(referencePage);
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/reference/init.js',
      tag: 'Reference',
      summary: 'Start-up script of the reference page',
      auth: 'none',
      envelope: 'raw',
      rawResponses: { 200: { description: 'JavaScript', contentType: 'text/javascript', schema: z.string() } },
      handler: ({ res }) => {
        res.type('text/javascript').send(initScript);
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/reference/assets/:file',
      tag: 'Reference',
      summary: 'Static files of the reference page',
      auth: 'none',
      params: z.object({ file: z.enum(ASSETS) }),
      notFound: 'File',
      envelope: 'raw',
      rawResponses: {
        200: {
          description: 'A static file (CSS, JavaScript or image)',
          contentType: ['text/css', 'text/javascript', 'application/javascript', 'image/png'],
          schema: z.string(),
        },
      },
      handler: ({ params, res }) => {
        res.setHeader('cache-control', 'public, max-age=86400');
        res.sendFile(params.file, { root: UI_DIR });
      },
    }),
  ];
}
