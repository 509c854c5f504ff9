import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeS3, startFakeS3 } from '../service/test/adapters/blobs/s3rver.ts';
import {
  cleanupRunners,
  ensureDist,
  runAction,
  type Service,
  startService,
  startSite,
} from './e2e/harness.ts';

const filesUnder = (dir: string): string[] =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : [path.join(dir, entry.name)],
    );

/**
 * Step debug logging on (RUNNER_DEBUG=1, which anyone re-running a job can switch on) with the
 * service's S3-compatible blob backend (s3rver): the action downloads every artifact from its
 * presigned S3 URL and no signature reaches the log, the summary or an output. The file
 * backend's signed URLs are checked the same way in e2e.test.ts.
 */
describe('no signed URL in the log with RUNNER_DEBUG=1 (S3 blob backend)', () => {
  let s3: FakeS3;
  let service: Service;
  let site: Awaited<ReturnType<typeof startSite>>;

  beforeAll(async () => {
    ensureDist();
    s3 = await startFakeS3();
    [service, site] = await Promise.all([startService(s3.env), startSite()]);
  }, 180_000);

  afterAll(async () => {
    cleanupRunners();
    await Promise.all([service?.stop(), site?.close()]);
    await s3?.close();
  });

  it('downloads the artifacts from S3 and logs their keys and sizes only', async () => {
    const testId = await service.createTest({
      name: 's3 fails on purpose',
      steps: [
        { name: 'open', action: { name: 'goto', url: '/' } },
        { name: 'title', action: { name: 'assertText', selector: '#title', value: 'Not this' } },
      ],
    });
    const result = await runAction(
      {
        'api-key': service.apiKey,
        'base-url': service.url,
        'project-id': service.projectId,
        'test-ids': testId,
        'target-url': site.url,
        'poll-interval-seconds': '1',
        artifacts: 'all',
        summary: 'true',
        'pr-comment': 'off',
        annotations: 'true',
      },
      { RUNNER_DEBUG: '1', GITHUB_WORKFLOW: 'CI', GITHUB_JOB: 's3' },
    );
    expect(result.outputs.status, result.stdout).toBe('failed');
    // The service really hands out S3 presigned URLs...
    const listed = await service.api('GET', `/v1/test-runs/${result.outputs['run-id']}/artifacts`);
    const urls = (listed.json.data as Array<{ url: string }>).map((artifact) => artifact.url);
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url).toMatch(/X-Amz-Signature=/);
    // ...the action fetched them (debug lines name key and size)...
    const files = filesUnder(result.outputs['artifacts-path'] ?? '');
    expect(files.some((file) => file.endsWith('bundle.tgz'))).toBe(true);
    expect(result.stdout).toMatch(/::debug::Downloaded artifact \S+ \(\d+ bytes\)/);
    // ...and no signature, credential scope or signed address shows anywhere.
    const everything = [result.stdout, result.summary, ...Object.values(result.outputs)].join('\n');
    for (const secret of ['X-Amz-Signature', 'X-Amz-Credential', 'signature=', s3.endpoint])
      expect(everything).not.toContain(secret);
    for (const url of urls) expect(everything).not.toContain(new URL(url).search);
  }, 240_000);
});
