import { IngestError } from './errors';

export interface HttpRequest {
  method: 'POST' | 'PATCH';
  /** Path below the base URL, e.g. `/ingest/spans`. */
  path: string;
  /** Already-serialized JSON body. */
  body: string;
}

export interface HttpResponse {
  status: number;
  /** Parsed JSON body, or undefined when the body was empty or not JSON. */
  json: unknown;
}

export interface HttpClientOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  fetch: typeof fetch;
}

/**
 * One attempt of one request. Every failure comes out as an IngestError that says whether
 * it is worth retrying: network errors, timeouts and 5xx are; 4xx are not.
 */
export class HttpClient {
  constructor(private readonly options: HttpClientOptions) {}

  async send(req: HttpRequest): Promise<HttpResponse> {
    const { baseUrl, apiKey, timeoutMs, fetch: fetchImpl } = this.options;
    const signal = AbortSignal.timeout(timeoutMs);
    let status: number;
    let text: string;
    try {
      const res = await fetchImpl(baseUrl + req.path, {
        method: req.method,
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
        body: req.body,
        signal,
      });
      status = res.status;
      // Always read the body: it frees the connection for reuse, and it is under the same
      // timeout, so a server that stalls mid-body is treated as a timeout too.
      text = await res.text();
    } catch (err) {
      if (signal.aborted || (err as Error)?.name === 'TimeoutError') {
        throw new IngestError('timeout', `${req.method} ${req.path} timed out after ${timeoutMs} ms`, {
          retryable: true,
          cause: err,
        });
      }
      const detail = describeCause(err);
      throw new IngestError('network', `${req.method} ${req.path} failed: ${detail}`, { retryable: true, cause: err });
    }

    const json = parseJson(text);
    if (status >= 200 && status < 300) return { status, json };
    const serverMessage = errorMessageOf(json);
    throw new IngestError(
      'http',
      `${req.method} ${req.path} answered ${status}${serverMessage ? `: ${serverMessage}` : ''}`,
      {
        status,
        retryable: status >= 500,
      },
    );
  }
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The gateway's error envelope is `{success:false, error, code}`. */
function errorMessageOf(json: unknown): string | undefined {
  if (json && typeof json === 'object' && typeof (json as { error?: unknown }).error === 'string') {
    return (json as { error: string }).error;
  }
  return undefined;
}

/** Node's fetch hides the useful part ("ECONNREFUSED") in `cause`. */
function describeCause(err: unknown): string {
  const e = err as { message?: string; cause?: { code?: string; message?: string } } | undefined;
  const inner = e?.cause?.code ?? e?.cause?.message;
  const outer = e?.message ?? String(err);
  return inner ? `${outer} (${inner})` : outer;
}
