import { readdirSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { StepAction, StepCondition, StepNode } from '@stepdeck/contract';
import { resolveChromium } from '../../src/runner/browser.ts';
import type { CompilableTest } from '../../src/runner/index.ts';

/** A tiny site on loopback: pages for browser tests, JSON endpoints for API tests. */
export interface Site {
  url: string;
  /** Messages of the fake inbox API (`GET /v1/email-inboxes/:inbox/messages`), any order. */
  mail: Array<{
    inbox: string;
    subject: string;
    bodyText: string;
    urls: string[];
    fromAddress: string;
    receivedAt: string;
  }>;
  /** Inbox polls seen: inbox, `since` and the API key header. */
  inboxPolls: Array<{ inbox: string; since: string | null; apiKey: string | undefined }>;
  /** Requests seen by the JSON endpoints (method, path, headers, body). */
  requests: Array<{ method: string; path: string; headers: http.IncomingHttpHeaders; body: string }>;
  close(): Promise<void>;
}

const HOME = `<!doctype html>
<html><head><title>Stepdeck Demo</title></head>
<body>
  <h1 id="heading">Welcome</h1>
  <p id="viewport"></p>
  <input id="name" />
  <p id="mirror"></p>
  <button id="greet" onclick="document.getElementById('greeting').textContent = 'Hello, ' + document.getElementById('name').value">Greet</button>
  <p id="greeting"></p>
  <a id="next" href="/next" data-kind="link">Next</a>
  <input id="upload" type="file" />
  <p id="uploaded"></p>
  <ul><li>one</li><li>two</li><li>three</li></ul>
  <script>
    document.getElementById('viewport').textContent = window.innerWidth + 'x' + window.innerHeight;
    document.getElementById('name').addEventListener('input', (e) => { document.getElementById('mirror').textContent = e.target.value; });
    document.getElementById('upload').addEventListener('change', async (e) => {
      const file = e.target.files[0];
      document.getElementById('uploaded').textContent = file.name + ':' + (await file.text());
    });
  </script>
</body></html>`;

const SIGNUP = `<!doctype html><html><head><title>Sign up</title></head><body>
  <button id="signup" onclick="fetch('/api/send-mail', { method: 'POST' }).then(() => { document.getElementById('sent').textContent = 'sent'; })">Sign up</button>
  <p id="sent"></p>
</body></html>`;
const CONFIRM = `<!doctype html><html><head><title>Confirmed</title></head><body><h1>Account confirmed</h1></body></html>`;
export const INBOX_API_KEY = 'inbox-api-key-123';

const NEXT = `<!doctype html><html><head><title>Next page</title></head><body><h1>Second</h1></body></html>`;

export async function startSite(): Promise<Site> {
  const requests: Site['requests'] = [];
  const mail: Site['mail'] = [];
  const inboxPolls: Site['inboxPolls'] = [];
  let base = '';
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const inboxRoute = /^\/v1\/email-inboxes\/([^/]+)\/messages$/.exec(url.pathname);
      if (inboxRoute) {
        const inbox = decodeURIComponent(inboxRoute[1] ?? '');
        const since = url.searchParams.get('since');
        const apiKey = req.headers['x-api-key'] as string | undefined;
        inboxPolls.push({ inbox, since, apiKey });
        res.setHeader('content-type', 'application/json');
        if (apiKey !== INBOX_API_KEY) {
          res.statusCode = 401;
          res.end(JSON.stringify({ message: 'invalid API key' }));
          return;
        }
        const data = mail
          .filter((message) => message.inbox === inbox && (!since || message.receivedAt >= since))
          .sort((a, b) => b.receivedAt.localeCompare(a.receivedAt));
        res.end(JSON.stringify({ data }));
        return;
      }
      if (url.pathname === '/api/send-mail') {
        // Delivered 700 ms later (like SMTP), so the first poll happens before it arrives.
        setTimeout(
          () =>
            mail.push({
              inbox: 'signup@inbox.test',
              subject: 'Confirm your account',
              bodyText: 'Welcome! Confirm here.',
              urls: [`${base}/next`, `${base}/confirm?token=new`],
              fromAddress: 'noreply@example.test',
              receivedAt: new Date().toISOString(),
            }),
          700,
        );
        res.end('{}');
        return;
      }
      if (url.pathname.startsWith('/api/')) {
        requests.push({ method: req.method ?? 'GET', path: url.pathname, headers: req.headers, body });
        res.setHeader('content-type', 'application/json');
        if (url.pathname === '/api/items') {
          res.end(JSON.stringify({ data: [{ id: 7, name: 'seven', tags: ['a', 'b'] }], total: 1 }));
          return;
        }
        if (url.pathname === '/api/echo') {
          res.statusCode = 201;
          res.end(
            JSON.stringify({
              received: body ? JSON.parse(body) : null,
              auth: req.headers.authorization ?? null,
            }),
          );
          return;
        }
        res.statusCode = 404;
        res.end(JSON.stringify({ message: 'not found' }));
        return;
      }
      res.setHeader('content-type', 'text/html; charset=utf-8');
      if (url.pathname === '/next') res.end(NEXT);
      else if (url.pathname === '/signup') res.end(SIGNUP);
      else if (url.pathname === '/confirm') res.end(CONFIRM);
      else res.end(HOME);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;
  // An old message with a confirm link: `since` must keep it out.
  mail.push({
    inbox: 'signup@inbox.test',
    subject: 'Confirm your account',
    bodyText: 'old',
    urls: [`${base}/confirm?token=old`],
    fromAddress: 'noreply@example.test',
    receivedAt: new Date(Date.now() - 3_600_000).toISOString(),
  });
  return {
    url: base,
    requests,
    mail,
    inboxPolls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let counter = 0;
export function step(name: string, action: StepAction, extra: Partial<StepNode> = {}): StepNode {
  counter += 1;
  return { id: `step-${counter}`, name, action, ...extra };
}

export function group(name: string, children: StepNode[], condition?: StepCondition): StepNode {
  return step(name, { name: 'group' }, { children, ...(condition ? { condition } : {}) });
}

export function uiTest(
  id: string,
  name: string,
  steps: StepNode[],
  extra: Partial<CompilableTest> = {},
): CompilableTest {
  return { id, name, type: 'ui', config: {}, vars: null, parameters: null, steps, files: [], ...extra };
}

const created: string[] = [];
export async function tempDir(prefix: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), `stepdeck-${prefix}-`));
  created.push(dir);
  return dir;
}

/** Removes the directories made by `tempDir` (call from afterAll). */
export async function removeTempDirs(): Promise<void> {
  for (const dir of created.splice(0)) await fs.rm(dir, { recursive: true, force: true });
}

/** Every file under a directory (relative path → content), skipping node_modules. */
export async function readTree(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    const relative = path.relative(dir, full);
    if (relative.split(path.sep).includes('node_modules')) continue;
    out.set(relative, readFileSync(full));
  }
  return out;
}

/** Live (non-zombie) processes among `pids`. */
export function alive(pids: number[]): number[] {
  return pids.filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
    } catch {
      return false;
    }
  });
}

/** A process's parent, from /proc (0 once it is gone). */
export function parentOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}

/** All descendants of a process, from /proc. */
export function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = parentOf(Number(entry));
    if (ppid) children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/** A process's environment as it was exec'ed, from /proc. */
export function environOf(pid: number): Map<string, string> {
  const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return new Map(
    environ.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

/**
 * The environment of `npx playwright test` in an exported project, as its README tells a user to
 * run it: PATH and HOME, and CHROMIUM_PATH naming the browser the service resolves (the generated
 * config's first choice), so that the export runs without Debian's Chromium or Playwright's own.
 */
export async function exportedRunEnv(extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const resolved = await resolveChromium();
  if (!resolved.ok) throw new Error(resolved.problem);
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    PLAYWRIGHT_HTML_OPEN: 'never',
    CHROMIUM_PATH: resolved.browser.executablePath,
    ...extra,
  };
}
