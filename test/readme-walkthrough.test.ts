import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root, type Service, startService } from './e2e/harness.ts';

const marker =
  '<!-- walkthrough: test/readme-walkthrough.test.ts runs this block against a fresh service -->';

/** The shell block right under the marker comment in README.md, as a reader copies it. */
function walkthrough(): string {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const at = readme.indexOf(marker);
  if (at < 0) throw new Error(`README.md has no line ${marker}`);
  const block = /^```sh\n([\s\S]*?)^```$/m.exec(readme.slice(at + marker.length));
  if (!block?.[1]) throw new Error('no ```sh block follows the walkthrough marker');
  return block[1];
}

/**
 * The README's API example, run with bash and curl as written against the real service on a
 * free port with a fresh DATA_DIR. The reader's own edits are made the way the README asks:
 * the key and project printed at the first start go into the two placeholder lines, and the
 * service's address replaces `localhost:8080`. https://example.com is a stand-in on loopback
 * serving the same title, since CI machines may not reach the internet.
 */
describe("the README's curl walkthrough", () => {
  let service: Service;
  let exampleDotCom: http.Server;
  let exampleUrl: string;

  beforeAll(async () => {
    exampleDotCom = http.createServer((_request, response) => {
      response.setHeader('content-type', 'text/html');
      response.end(
        '<!doctype html><html><head><title>Example Domain</title></head><body><h1>Example Domain</h1></body></html>',
      );
    });
    await new Promise<void>((resolve) => exampleDotCom.listen(0, '127.0.0.1', resolve));
    exampleUrl = `http://127.0.0.1:${(exampleDotCom.address() as AddressInfo).port}`;
    service = await startService();
  });
  afterAll(async () => {
    await service?.stop();
    await new Promise((resolve) => exampleDotCom?.close(resolve));
  });

  it('creates a test, runs it and ends with the run completed', async () => {
    const script = walkthrough();
    const filled = script
      .replace(/^KEY=sd_\.\.\.(?=\s)/m, `KEY=${service.apiKey}`)
      .replace(/^PROJECT=\.\.\.(?=\s)/m, `PROJECT=${service.projectId}`)
      .replaceAll('localhost:8080', service.url.replace('http://127.0.0.1', 'localhost'))
      .replaceAll('https://example.com', exampleUrl);
    // Each reader edit found its placeholder: nothing of the originals is left.
    expect(filled).not.toMatch(/sd_\.\.\.|PROJECT=\.\.\.|localhost:8080|https:\/\/example\.com/);
    expect(filled).toContain(`KEY=${service.apiKey}`);

    const { stdout, stderr, code } = await new Promise<{ stdout: string; stderr: string; code: number }>(
      (resolve) => {
        const child = execFile('bash', ['-c', filled], { timeout: 150_000 }, (error, stdout, stderr) =>
          resolve({ stdout, stderr, code: error ? Number((error as { code?: number }).code ?? 1) : 0 }),
        );
        child.stdin?.end();
      },
    );
    expect({ code, stderr }, `${stdout}\n${service.log()}`).toEqual({ code: 0, stderr: '' });
    expect(stdout.trim().split('\n').at(-1)).toBe('completed');
  }, 180_000);
});
