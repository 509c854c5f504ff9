// Real parts for the end-to-end test and the action benchmark: the service as a child process,
// a page on loopback, stand-ins for the GitHub REST API and the Actions artifact service
// (whose blob uploads go to azurite), and `node dist/index.js` run as a runner would.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const actionEntry = path.join(root, 'dist/index.js');

/** Builds dist/ only when it is missing (CI runs `npm run build` before the tests). */
export function ensureDist(): string {
  if (!fs.existsSync(actionEntry))
    execFileSync(process.execPath, ['scripts/build-action.mjs'], { cwd: root, stdio: 'inherit' });
  return actionEntry;
}

export async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const close = (server: http.Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

async function readBody(request: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch {}
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export interface Service {
  url: string;
  apiKey: string;
  projectId: string;
  dataDir: string;
  /** Output of the child, for failure messages. */
  log: () => string;
  // biome-ignore lint/suspicious/noExplicitAny: test helper reading arbitrary API responses
  api(method: string, url: string, body?: unknown): Promise<{ status: number; json: any }>;
  createTest(testData: Record<string, unknown>): Promise<string>;
  stop(): Promise<void>;
}

/** The real service (`node service/src/server.ts`): SQLite and blobs under a temp DATA_DIR. */
export async function startService(env: Record<string, string> = {}): Promise<Service> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-e2e-service-'));
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, ['service/src/server.ts'], {
    cwd: root,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      SMTP_PORT: '0',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '100000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopChild(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      'the service to listen',
      async () => {
        if (child.exitCode !== null) throw new Error(`the service exited: ${output}`);
        // The credentials are written once every listener is up, just after /healthz answers.
        const up = (await fetch(`${url}/healthz`)).ok && fs.existsSync(path.join(dataDir, 'bootstrap.json'));
        return up ? true : undefined;
      },
      90_000,
    );
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n${output}`);
  }
  const bootstrap = JSON.parse(fs.readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8')) as {
    apiKey: string;
    projectId: string;
  };
  const headers = { 'x-api-key': bootstrap.apiKey, 'x-project-id': bootstrap.projectId };
  const api = async (method: string, pathname: string, body?: unknown) => {
    const response = await fetch(`${url}${pathname}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : undefined };
  };
  return {
    url,
    apiKey: bootstrap.apiKey,
    projectId: bootstrap.projectId,
    dataDir,
    log: () => output,
    api,
    async createTest(testData) {
      const form = new FormData();
      form.append('testData', JSON.stringify({ status: 'active', ...testData }));
      const response = await fetch(`${url}/v1/tests`, { method: 'POST', headers, body: form });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`creating a test: ${response.status} ${text}`);
      return (JSON.parse(text) as { data: { id: string } }).data.id;
    },
    stop,
  };
}

/**
 * A page for browser tests: `/` has `<h1 id="title">Hello Stepdeck</h1>`. `/flaky` answers
 * `Not yet` to its first request and `Hello Stepdeck` from the second on: a test of it fails,
 * then passes on a retry.
 */
export async function startSite(): Promise<{ url: string; close(): Promise<void> }> {
  let flakyRequests = 0;
  const server = http.createServer((request, response) => {
    response.setHeader('content-type', 'text/html');
    const title =
      new URL(request.url ?? '/', 'http://site').pathname === '/flaky' && ++flakyRequests === 1
        ? 'Not yet'
        : 'Hello Stepdeck';
    response.end(
      `<!doctype html><html><head><title>E2E page</title></head><body><h1 id="title">${title}</h1></body></html>`,
    );
  });
  const url = await listen(server);
  return { url, close: () => close(server) };
}

export interface RecordedCall {
  method: string;
  path: string;
  body: Record<string, unknown> | undefined;
}

export interface Comment {
  id: number;
  body: string;
}

/** Workflow artifacts the GitHub stand-in lists and serves (those uploaded to azurite). */
export interface ArtifactSource {
  list(): Array<{ id: number; name: string; size: number }>;
  /** A signed download address of the artifact's zip (GitHub answers 302 to it). */
  downloadUrl(id: number): Promise<string | undefined>;
}

/**
 * The GitHub REST API's issue comments (list with Link pagination, create, update), commit
 * statuses and a workflow run's artifacts (list, download redirect; see `useArtifacts`),
 * recording every call. `seedComments` unrelated comments exist beforehand, so finding the
 * action's own comment needs more than one page.
 */
export async function startGitHub(options: {
  owner: string;
  repo: string;
  pr: number;
  seedComments: number;
}) {
  const calls: RecordedCall[] = [];
  const comments: Comment[] = Array.from({ length: options.seedComments }, (_, index) => ({
    id: index + 1,
    body: `unrelated comment ${index + 1}`,
  }));
  let nextId = 1000;
  const statuses: Array<{ sha: string } & Record<string, unknown>> = [];
  let artifacts: ArtifactSource | undefined;
  const repoPath = `/repos/${options.owner}/${options.repo}`;
  const prefix = `${repoPath}/issues`;
  let base = '';
  const asJson = (comment: Comment) => ({
    id: comment.id,
    body: comment.body,
    html_url: `https://github.example/${options.owner}/${options.repo}/pull/${options.pr}#issuecomment-${comment.id}`,
  });
  const server = http.createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', base);
    const text = (await readBody(request)).toString();
    const body = text ? JSON.parse(text) : undefined;
    calls.push({ method: request.method ?? '', path: `${url.pathname}${url.search}`, body });
    response.setHeader('content-type', 'application/json');
    const send = (status: number, value: unknown) => {
      response.statusCode = status;
      response.end(JSON.stringify(value));
    };
    if (!/^(token|Bearer) gh-test-token$/.test(request.headers.authorization ?? ''))
      return send(401, { message: 'Bad credentials' });
    if (url.pathname === `${prefix}/${options.pr}/comments` && request.method === 'GET') {
      const perPage = Number(url.searchParams.get('per_page') ?? 30);
      const page = Number(url.searchParams.get('page') ?? 1);
      const slice = comments.slice((page - 1) * perPage, page * perPage);
      if (page * perPage < comments.length) {
        const next = new URL(url);
        next.searchParams.set('page', String(page + 1));
        response.setHeader('link', `<${next.href}>; rel="next"`);
      }
      return send(200, slice.map(asJson));
    }
    if (url.pathname === `${prefix}/${options.pr}/comments` && request.method === 'POST') {
      const comment = { id: nextId++, body: String(body?.body ?? '') };
      comments.push(comment);
      return send(201, asJson(comment));
    }
    const status = url.pathname.match(new RegExp(`^${repoPath}/statuses/([0-9a-f]{40})$`));
    if (status && request.method === 'POST') {
      statuses.push({ sha: status[1] as string, ...body });
      return send(201, { id: statuses.length, ...body });
    }
    if (artifacts && new RegExp(`^${repoPath}/actions/runs/\\d+/artifacts$`).test(url.pathname)) {
      const listed = artifacts.list().map((artifact) => ({
        id: artifact.id,
        name: artifact.name,
        size_in_bytes: artifact.size,
        created_at: new Date().toISOString(),
      }));
      return send(200, { total_count: listed.length, artifacts: listed });
    }
    const zip = url.pathname.match(new RegExp(`^${repoPath}/actions/artifacts/(\\d+)/zip$`));
    if (artifacts && zip) {
      const location = await artifacts.downloadUrl(Number(zip[1]));
      if (!location) return send(404, { message: 'Not Found' });
      response.statusCode = 302;
      response.setHeader('location', location);
      return response.end();
    }
    const update = url.pathname.match(new RegExp(`^${prefix}/comments/(\\d+)$`));
    if (update && request.method === 'PATCH') {
      const comment = comments.find((item) => item.id === Number(update[1]));
      if (!comment) return send(404, { message: 'Not Found' });
      comment.body = String(body?.body ?? '');
      return send(200, asJson(comment));
    }
    send(404, { message: 'Not Found' });
  });
  base = await listen(server);
  return {
    url: base,
    calls,
    comments,
    statuses,
    /** Lists and serves these artifacts from now on (the artifact service starts later). */
    useArtifacts: (source: ArtifactSource) => {
      artifacts = source;
    },
    close: () => close(server),
  };
}

/** The result of one `node dist/index.js`. */
export interface ActionRun {
  code: number | null;
  stdout: string;
  outputs: Record<string, string>;
  summary: string;
  /** Wall-clock time the process exited (ms since the epoch). */
  exitedAt: number;
  /** The runner's temp directory (RUNNER_TEMP); removed by `cleanupRunners()`. */
  dir: string;
}

const runnerDirs: string[] = [];
export function cleanupRunners() {
  for (const dir of runnerDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** Reads `$GITHUB_OUTPUT`: `name<<delimiter\nvalue\ndelimiter` blocks (and plain `name=value`). */
export function parseOutputFile(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const heredoc = line.match(/^([^=<]+)<<(.+)$/);
    if (heredoc) {
      const [, name, delimiter] = heredoc as unknown as [string, string, string];
      const value: string[] = [];
      for (index++; index < lines.length && lines[index] !== delimiter; index++)
        value.push(lines[index] as string);
      outputs[name] = value.join('\n');
    } else if (line.includes('=')) {
      const at = line.indexOf('=');
      outputs[line.slice(0, at)] = line.slice(at + 1);
    }
  }
  return outputs;
}

/**
 * Runs the bundled action as a runner does: `INPUT_<NAME>` variables (upper-cased, dashes
 * kept), `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`, `GITHUB_STATE`, and the given environment.
 */
export async function runAction(
  inputs: Record<string, string>,
  env: Record<string, string>,
): Promise<ActionRun> {
  return startAction(inputs, env).done;
}

/** Starts the action without waiting for it: `savedState()` reads `$GITHUB_STATE` meanwhile. */
export function startAction(inputs: Record<string, string>, env: Record<string, string>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-e2e-runner-'));
  runnerDirs.push(dir);
  const files = {
    GITHUB_OUTPUT: path.join(dir, 'output'),
    GITHUB_STEP_SUMMARY: path.join(dir, 'summary.md'),
    GITHUB_STATE: path.join(dir, 'state'),
  };
  for (const file of Object.values(files)) fs.writeFileSync(file, '');
  const inputEnv = Object.fromEntries(
    Object.entries(inputs).map(([name, value]) => [`INPUT_${name.replace(/ /g, '_').toUpperCase()}`, value]),
  );
  // Nothing from the test process's own GitHub environment leaks in.
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(INPUT_|GITHUB_|ACTIONS_|RUNNER_|STATE_)/.test(name)),
  );
  const child = spawn(process.execPath, [ensureDist()], {
    cwd: dir,
    env: { ...base, RUNNER_TEMP: dir, ...files, ...inputEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const done = new Promise<ActionRun>((resolve) =>
    child.once('exit', (code) =>
      resolve({
        code,
        stdout,
        outputs: parseOutputFile(fs.readFileSync(files.GITHUB_OUTPUT, 'utf8')),
        summary: fs.readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8'),
        exitedAt: Date.now(),
        dir,
      }),
    ),
  );
  return {
    child,
    done,
    /** `$GITHUB_STATE` as the runner hands it to the post step: `STATE_<name>` variables. */
    savedState: () =>
      Object.fromEntries(
        Object.entries(parseOutputFile(fs.readFileSync(files.GITHUB_STATE, 'utf8'))).map(([name, value]) => [
          `STATE_${name}`,
          value,
        ]),
      ),
  };
}

/** Azurite's well-known development account. */
const azuriteAccount = 'devstoreaccount1';
const azuriteKey = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

/** Azurite's blob service (the Azure Storage emulator) as a child process on a free port. */
export async function startAzurite() {
  const location = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-e2e-azurite-'));
  const port = await freePort();
  let output = '';
  const child = spawn(
    process.execPath,
    [
      path.join(root, 'node_modules/azurite/dist/src/blob/main.js'),
      ...['--blobHost', '127.0.0.1', '--blobPort', String(port), '--location', location],
      ...['--silent', '--skipApiVersionCheck', '--disableTelemetry', '--loose'],
    ],
    { cwd: location, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const stop = async () => {
    await stopChild(child);
    fs.rmSync(location, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${port}/${azuriteAccount}`;
  try {
    // Unauthenticated: 403 once it listens.
    await waitFor(
      'azurite',
      async () => ((await fetch(`${url}?comp=list`)).status ? true : undefined),
      // Room for a loaded machine: azurite took over a minute to listen under 8 helpers' load.
      180_000,
    );
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n${output}`);
  }
  const { BlobServiceClient, StorageSharedKeyCredential } = await import('@azure/storage-blob');
  const credential = new StorageSharedKeyCredential(azuriteAccount, azuriteKey);
  return { url, credential, service: new BlobServiceClient(url, credential), stop };
}

type Azurite = Awaited<ReturnType<typeof startAzurite>>;

/** An unsigned JWT carrying the `Actions.Results:<run>:<job>` scope the artifact client reads. */
export function runtimeToken(workflowRunBackendId: string, jobRunBackendId: string): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part({
    scp: `Actions.ExampleScope Actions.Results:${workflowRunBackendId}:${jobRunBackendId}`,
    exp: Math.floor(Date.now() / 1000) + 3600,
  })}.signature`;
}

/**
 * The Actions results service's artifact API (Twirp JSON): CreateArtifact answers a SAS upload
 * URL into azurite, FinalizeArtifact checks the blob landed there and answers an artifact id.
 */
export async function startArtifactService(azurite: Azurite, token: string) {
  const { BlobSASPermissions, generateBlobSASQueryParameters } = await import('@azure/storage-blob');
  const container = azurite.service.getContainerClient('actions-results');
  await container.createIfNotExists();
  const calls: RecordedCall[] = [];
  const artifacts: Array<{ id: number; name: string; blob: string; size: number; hash: string }> = [];
  const prefix = '/twirp/github.actions.results.api.v1.ArtifactService/';
  const server = http.createServer(async (request, response) => {
    const text = (await readBody(request)).toString();
    const body = text ? JSON.parse(text) : {};
    calls.push({ method: request.method ?? '', path: request.url ?? '', body });
    response.setHeader('content-type', 'application/json');
    const send = (status: number, value: unknown) => {
      response.statusCode = status;
      response.end(JSON.stringify(value));
    };
    if (request.headers.authorization !== `Bearer ${token}`)
      return send(401, { code: 'unauthenticated', msg: 'bad token' });
    const blob = `${body.workflowRunBackendId}/${body.workflowJobRunBackendId}/${body.name}.zip`;
    if (request.url === `${prefix}CreateArtifact`) {
      const sas = generateBlobSASQueryParameters(
        {
          containerName: 'actions-results',
          blobName: blob,
          permissions: BlobSASPermissions.parse('rcw'),
          expiresOn: new Date(Date.now() + 3600_000),
        },
        azurite.credential,
      );
      return send(200, { ok: true, signedUploadUrl: `${container.getBlobClient(blob).url}?${sas}` });
    }
    if (request.url === `${prefix}FinalizeArtifact`) {
      const properties = await container.getBlobClient(blob).getProperties();
      if (String(properties.contentLength) !== String(body.size))
        return send(400, {
          code: 'invalid_argument',
          msg: `size ${body.size} ≠ ${properties.contentLength}`,
        });
      const id = artifacts.length + 1;
      artifacts.push({ id, name: body.name, blob, size: Number(body.size), hash: String(body.hash ?? '') });
      return send(200, { ok: true, artifactId: String(id) });
    }
    send(404, { code: 'bad_route', msg: `no route ${request.url}` });
  });
  const url = await listen(server);
  return {
    url,
    calls,
    artifacts,
    /** The uploaded zip, read back from azurite. */
    download: async (blob: string) => container.getBlobClient(blob).downloadToBuffer(),
    /** The uploads as the GitHub API lists and serves them (a signed, read-only blob URL). */
    source: {
      list: () => artifacts.map(({ id, name, size }) => ({ id, name, size })),
      downloadUrl: async (id: number) => {
        const artifact = artifacts.find((item) => item.id === id);
        if (!artifact) return undefined;
        const sas = generateBlobSASQueryParameters(
          {
            containerName: 'actions-results',
            blobName: artifact.blob,
            permissions: BlobSASPermissions.parse('r'),
            expiresOn: new Date(Date.now() + 3600_000),
          },
          azurite.credential,
        );
        return `${container.getBlobClient(artifact.blob).url}?${sas}`;
      },
    } satisfies ArtifactSource,
    close: () => close(server),
  };
}
