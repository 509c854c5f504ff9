import {
  cancelRunResponse,
  createdTest,
  dataOf,
  type LeftOutTest,
  latestRunResponse,
  pagination,
  type RunArtifact,
  type RunConfig,
  type RunSource,
  type RunTriage,
  remoteRunResponse,
  runArtifactsResponse,
  runTestsResponse,
  runTriageResponse,
  type TestRunDetail,
  testDetailResponse,
  testListItem,
  testRunDetailResponse,
} from '@stepdeck/contract';
import { request } from 'undici';
import { z } from 'zod';

/**
 * The fields of `GET /v1/tests` items the trigger reads to expand tags and directories past
 * the 100-tests cap: the contract's item, narrowed (other fields pass through unchecked).
 */
const testListBriefResponse = z.object({
  children: z.array(testListItem.pick({ id: true, directory: true, status: true }).loose()),
  pagination,
});

/** The only code that knows the Stepdeck HTTP API. */
export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  projectId: string;
  branchId?: string | undefined;
  /** Progress lines (retries); never receives the API key. */
  log?: (message: string) => void;
  sleep?: (ms: number) => Promise<void>;
  /** Attempts for 5xx and network errors (and, separately, for 429). */
  maxAttempts?: number;
  /** First backoff delay for 5xx and network errors; doubles each attempt. */
  backoffMs?: number;
}

export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/**
 * A non-idempotent request (a trigger POST) failed in a way that does not say whether the
 * service acted on it: a 5xx (a proxy's 504 while the service started the run) or a socket
 * error after the request may have been sent.
 */
export class AmbiguousRequestError extends ApiError {
  override name = 'AmbiguousRequestError';
}

/**
 * Socket errors raised before a byte of the request can have reached the service (no
 * connection, no address): the only network errors after which a trigger POST is resent as is.
 */
const notSentCodes = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * How far the service's clock may be behind ours when a run it created is matched to the
 * trigger request that may have created it.
 */
export const clockSkewMs = 60_000;

export interface TriggeredRun {
  runId: string;
  status: string;
  totalTests?: number | undefined;
  message?: string | undefined;
  /** Tests of the target the run did not include (drafts, archived), from newer services. */
  leftOut?: LeftOutTest[] | undefined;
}

const sleepReal = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Seconds or an HTTP date; falls back to 5 s. */
export function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return 5000;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? 5000 : Math.max(0, date - now);
}

export class StepdeckClient {
  /** Requests sent (including retries); read by the benchmark. */
  requests = 0;
  readonly #options: ClientOptions;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(options: ClientOptions) {
    this.#options = options;
    this.#sleep = options.sleep ?? sleepReal;
  }

  async triggerTest(
    testId: string,
    config?: RunConfig,
    metadata?: RunSource,
    environment?: string,
  ): Promise<TriggeredRun> {
    return this.#start(testId, `/v1/tests/${testId}/remote-run`, {
      ...(config ? { config } : {}),
      ...(environment ? { environment } : {}),
      ...(metadata ? { metadata } : {}),
    });
  }

  async triggerBulk(
    target: { testIds?: string[]; tagId?: string },
    config?: RunConfig,
    metadata?: RunSource,
    environment?: string,
  ): Promise<TriggeredRun> {
    // The latest run of the tag, or of the first test id, is the run this request may have started.
    const key = target.tagId ?? target.testIds?.[0] ?? '';
    return this.#start(key, '/v1/tests/remote-run', {
      ...target,
      ...(config ? { config } : {}),
      ...(environment ? { environment } : {}),
      ...(metadata ? { metadata } : {}),
    });
  }

  /**
   * Each failure of an ended run, classed new, known, flaky or quarantined. One attempt:
   * a service without the endpoint, or any failure, leaves the results without triage.
   */
  async triage(runId: string): Promise<RunTriage> {
    const body = await this.#call('GET', `/v1/test-runs/${runId}/triage`, undefined, 'json', true, 1);
    return runTriageResponse.parse(body).data;
  }

  /**
   * A trigger POST is not idempotent: resending it after the service started a run (and a
   * proxy answered 504) starts nothing but a 429 cooldown and a 409, and leaves the first run
   * orphaned. So it is resent only when it provably did not arrive (connection refused, no
   * address) or, after an ambiguous failure (5xx, a socket error once sent), when
   * `GET /v1/test-runs/latest?testId=<test or tag>` shows no run created since it was sent;
   * a run that was is taken as the one it started.
   */
  async #start(key: string, path: string, body: Record<string, unknown>): Promise<TriggeredRun> {
    const maxAttempts = this.#options.maxAttempts ?? 5;
    const backoffMs = this.#options.backoffMs ?? 1000;
    for (let attempt = 1; ; attempt++) {
      const sentAt = Date.now();
      try {
        return remoteRunResponse.parse(await this.#call('POST', path, body, 'json', false)).data;
      } catch (error) {
        if (!(error instanceof AmbiguousRequestError)) throw error;
        let started: Awaited<ReturnType<StepdeckClient['latestRun']>>;
        try {
          started = await this.latestRun(key);
        } catch (lookup) {
          throw new ApiError(
            error.status,
            `${error.message}; a run may have started, and looking it up failed too (${(lookup as Error).message}): check the project's runs before triggering again`,
          );
        }
        if (started && Date.parse(started.createdAt) >= sentAt - clockSkewMs) {
          this.#options.log?.(
            `${error.message}; run ${started.id} (${started.status}) was created since: taking it as the run this request started`,
          );
          return { runId: started.id, status: started.status };
        }
        if (attempt >= maxAttempts) throw error;
        const delay = backoffMs * 2 ** (attempt - 1);
        this.#options.log?.(`${error.message}; no run was started: triggering again in ${delay} ms`);
        await this.#sleep(delay);
      }
    }
  }

  async latestRun(testId: string) {
    const body = await this.#call('GET', `/v1/test-runs/latest?testId=${encodeURIComponent(testId)}`);
    return latestRunResponse.parse(body).data;
  }

  async getRun(runId: string): Promise<TestRunDetail> {
    return testRunDetailResponse.parse(await this.#call('GET', `/v1/test-runs/${runId}`)).data;
  }

  async artifacts(runId: string): Promise<RunArtifact[]> {
    return runArtifactsResponse.parse(await this.#call('GET', `/v1/test-runs/${runId}/artifacts`)).data;
  }

  /** The tests a run was started with (also those it never reported on). */
  async runTests(runId: string): Promise<Array<{ testId: string; testName: string }>> {
    return runTestsResponse.parse(await this.#call('GET', `/v1/test-runs/${runId}/tests`)).data;
  }

  async report(runId: string): Promise<string> {
    return (await this.#call('GET', `/v1/test-runs/${runId}/report`, undefined, 'text')) as string;
  }

  async cancel(runId: string) {
    return cancelRunResponse.parse(await this.#call('POST', `/v1/test-runs/${runId}/cancel`, {})).data;
  }

  /** Active leaf tests under a directory or carrying a tag (all pages), for splitting big runs. */
  async activeLeafTests(filter: { directoryId?: string; tagId?: string }): Promise<string[]> {
    const leaves: string[] = [];
    if (filter.directoryId) {
      const query = `testId=${encodeURIComponent(filter.directoryId)}`;
      const page = this.#parse(testListBriefResponse, await this.#call('GET', `/v1/tests?${query}`));
      for (const child of page.children) {
        if (child.directory) leaves.push(...(await this.activeLeafTests({ directoryId: child.id })));
        else if (child.status === 'active') leaves.push(child.id);
      }
      return leaves;
    }
    for (let pageIndex = 0; ; pageIndex++) {
      const query = `tagIds=${encodeURIComponent(filter.tagId ?? '')}&status=active&limit=500&page=${pageIndex}`;
      const page = this.#parse(testListBriefResponse, await this.#call('GET', `/v1/tests?${query}`));
      for (const child of page.children) if (!child.directory) leaves.push(child.id);
      if (!page.pagination.hasMore) return leaves;
    }
  }

  /** `POST /v1/tests` (multipart: `testData` JSON and `files` uploads); the new test's id. */
  async createTest(testData: Record<string, unknown>, files: UploadFile[] = []): Promise<string> {
    const body = await this.#call('POST', '/v1/tests', await testForm(testData, files));
    return this.#parse(dataOf(createdTest), body).data.id;
  }

  /** `PUT /v1/tests/:id` (multipart); a changed `editVersion` answers 409. */
  async updateTest(
    testId: string,
    testData: Record<string, unknown>,
    files: UploadFile[] = [],
  ): Promise<void> {
    await this.#call('PUT', `/v1/tests/${testId}`, await testForm(testData, files));
  }

  /** Fails unless the key may read tests of the project (one cheap list request). */
  async checkAccess(): Promise<void> {
    await this.#call('GET', '/v1/tests?limit=1');
  }

  async getTest(testId: string) {
    return this.#parse(testDetailResponse, await this.#call('GET', `/v1/tests/${testId}`));
  }

  #parse<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
    return schema.parse(body);
  }

  async #call(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    json?: unknown,
    as: 'json' | 'text' = 'json',
    /** False for trigger POSTs: see #start. */
    idempotent = true,
    attempts?: number,
  ): Promise<unknown> {
    const { baseUrl, apiKey, projectId, branchId, log } = this.#options;
    const maxAttempts = attempts ?? this.#options.maxAttempts ?? 5;
    const backoffMs = this.#options.backoffMs ?? 1000;
    const headers: Record<string, string> = {
      'x-api-key': apiKey,
      'x-project-id': projectId,
      'user-agent': 'stepdeck-action',
      ...(branchId ? { 'x-branch-id': branchId } : {}),
      ...(json === undefined
        ? {}
        : { 'content-type': json instanceof Multipart ? json.contentType : 'application/json' }),
    };
    let failures = 0;
    let throttled = 0;
    for (;;) {
      this.requests++;
      let statusCode: number;
      let responseHeaders: Record<string, string | string[] | undefined>;
      let text: string;
      try {
        const response = await request(`${baseUrl}${path}`, {
          method,
          headers,
          body: json === undefined ? undefined : json instanceof Multipart ? json.body : JSON.stringify(json),
          headersTimeout: 30_000,
          bodyTimeout: 60_000,
        });
        statusCode = response.statusCode;
        responseHeaders = response.headers;
        text = await response.body.text();
      } catch (error) {
        // Network errors: the cause is the socket's, never the request headers.
        failures++;
        const reason =
          error instanceof Error ? (error as NodeJS.ErrnoException).code || error.message : 'error';
        if (!idempotent && !notSentCodes.has((error as NodeJS.ErrnoException).code ?? ''))
          throw new AmbiguousRequestError(0, `${method} ${path} failed: ${reason}`);
        if (failures >= maxAttempts)
          throw new ApiError(0, `${method} ${path} failed after ${failures} attempts: ${reason}`);
        const delay = backoffMs * 2 ** (failures - 1);
        log?.(`${method} ${path}: ${reason}, retrying in ${delay} ms`);
        await this.#sleep(delay);
        continue;
      }
      if (statusCode >= 200 && statusCode < 300) {
        if (as === 'text') return text;
        try {
          return JSON.parse(text);
        } catch {
          throw new ApiError(statusCode, `${method} ${path}: the response is not JSON`);
        }
      }
      const message = serviceMessage(text).replaceAll(apiKey, '***');
      if (statusCode === 429) {
        throttled++;
        if (throttled > 20)
          throw new ApiError(429, `${method} ${path}: still rate limited after 20 attempts`);
        const delay = retryAfterMs(responseHeaders['retry-after']);
        log?.(`${method} ${path}: rate limited (${message}), retrying in ${Math.round(delay / 1000)} s`);
        await this.#sleep(delay);
        continue;
      }
      if (statusCode >= 500) {
        if (!idempotent)
          throw new AmbiguousRequestError(
            statusCode,
            `${method} ${path} failed with ${statusCode}: ${message}`,
          );
        failures++;
        if (failures >= maxAttempts)
          throw new ApiError(statusCode, `${method} ${path} failed with ${statusCode}: ${message}`);
        const delay = backoffMs * 2 ** (failures - 1);
        log?.(`${method} ${path}: ${statusCode} ${message}, retrying in ${delay} ms`);
        await this.#sleep(delay);
        continue;
      }
      throw new ApiError(
        statusCode,
        `${method} ${path} failed with ${statusCode}: ${message || '(no message)'}`,
      );
    }
  }
}

/** A file for `setInputFiles` steps, uploaded with the test. */
export interface UploadFile {
  filename: string;
  content: Buffer;
}

/** A multipart body, encoded up front so that a retry sends the same bytes. */
class Multipart {
  readonly body: Buffer;
  readonly contentType: string;
  constructor(body: Buffer, contentType: string) {
    this.body = body;
    this.contentType = contentType;
  }
}

/** `testData` and `files` as multipart/form-data, encoded by the platform's own FormData. */
async function testForm(testData: Record<string, unknown>, files: UploadFile[]): Promise<Multipart> {
  const form = new FormData();
  form.append('testData', JSON.stringify(testData));
  for (const file of files) form.append('files', new Blob([new Uint8Array(file.content)]), file.filename);
  const encoded = new Response(form);
  return new Multipart(
    Buffer.from(await encoded.arrayBuffer()),
    encoded.headers.get('content-type') ?? 'multipart/form-data',
  );
}

function serviceMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { message?: unknown; error?: unknown };
    if (typeof body.message === 'string') return body.message;
    if (typeof body.error === 'string') return body.error;
  } catch {}
  return text.slice(0, 200);
}
