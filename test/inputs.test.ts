import { describe, expect, it } from 'vitest';
import { InputError, parseInputs, type RawInputs } from '../src/inputs.ts';
import { apiKey, projectId, uuid } from './fixtures.ts';

const minimal: RawInputs = {
  'api-key': apiKey,
  'base-url': 'https://stepdeck.example.com/',
  'project-id': projectId,
  'test-ids': uuid(1),
};
const parse = (extra: RawInputs) => parseInputs({ ...minimal, ...extra }, { workflow: 'CI', job: 'e2e' });
const rejects = async (extra: RawInputs, message: RegExp) => {
  await expect(parse(extra)).rejects.toThrow(InputError);
  await expect(parse(extra)).rejects.toThrow(message);
};

describe('inputs', () => {
  it('applies the documented defaults', async () => {
    const inputs = await parse({});
    expect(inputs).toMatchObject({
      baseUrl: 'https://stepdeck.example.com',
      testIds: [uuid(1)],
      tagId: undefined,
      branchId: undefined,
      config: undefined,
      wait: true,
      timeoutMs: 30 * 60_000,
      pollIntervalMs: 5000,
      failOn: ['failed', 'cancelled', 'timeout', 'error'],
      artifacts: 'all',
      artifactName: undefined,
      artifactRetentionDays: undefined,
      summary: true,
      prComment: 'update',
      commentKey: 'CI/e2e',
      commentMode: 'per-job',
      annotations: true,
      githubToken: undefined,
    });
  });

  it('parses every input when set', async () => {
    const inputs = await parse({
      'branch-id': uuid(2).toUpperCase(),
      'test-ids': `${uuid(1)}\n${uuid(3)}, ${uuid(1)}\n\n`,
      config: '{"retries":2,"use":{"trace":"on"}}',
      'target-url': 'https://pr-12.preview.example.com',
      browser: 'firefox',
      wait: 'FALSE',
      'timeout-minutes': '2.5',
      'poll-interval-seconds': '10',
      'fail-on': 'failed, timeout',
      artifacts: 'failed',
      'artifact-name': 'my-results',
      'artifact-retention-days': '7',
      summary: 'false',
      'pr-comment': 'new',
      'comment-key': 'matrix-a',
      'github-token': 'ghs_x',
      annotations: 'false',
    });
    expect(inputs).toMatchObject({
      branchId: uuid(2),
      testIds: [uuid(1), uuid(3)],
      config: {
        retries: 2,
        use: { trace: 'on', baseURL: 'https://pr-12.preview.example.com', browserName: 'firefox' },
      },
      wait: false,
      timeoutMs: 150_000,
      pollIntervalMs: 10_000,
      failOn: ['failed', 'timeout'],
      artifacts: 'failed',
      artifactName: 'my-results',
      artifactRetentionDays: 7,
      summary: false,
      prComment: 'new',
      commentKey: 'matrix-a',
      githubToken: 'ghs_x',
      annotations: false,
    });
    expect((await parse({ 'fail-on': 'none' })).failOn).toEqual([]);
    expect((await parse({ 'test-ids': '', 'tag-id': uuid(5) })).tagId).toBe(uuid(5));
    expect((await parse({ browser: 'webkit' })).commentKey).toBe('CI/e2e/webkit');
  });

  it.each([
    [{ 'api-key': '' }, /"api-key" is required/],
    [{ 'base-url': ' ' }, /"base-url" is required/],
    [{ 'base-url': 'not a url' }, /"base-url" must be a URL/],
    [{ 'base-url': 'ftp://x' }, /"base-url" must be an http\(s\) URL/],
    [{ 'project-id': '' }, /"project-id" is required/],
    [{ 'project-id': 'abc' }, /"project-id" must contain UUIDs, got "abc"/],
    [{ 'branch-id': 'main' }, /"branch-id" must contain UUIDs/],
    [{ 'test-ids': `${uuid(1)},nope` }, /"test-ids" must contain UUIDs, got "nope"/],
    [{ 'tag-id': uuid(4) }, /"test-ids" and "tag-id" are exclusive/],
    [{ 'test-ids': '' }, /"test-ids" or "tag-id" is required/],
    [{ 'test-ids': '', 'tag-id': 'x' }, /"tag-id" must contain UUIDs/],
    [{ config: '{' }, /"config" must be a JSON object \(it is not valid JSON\)/],
    [{ config: '[1]' }, /"config" must be a JSON object/],
    [{ config: '{"retries":-1}' }, /"config" is not a valid run config: config\.retries: /],
    [
      { config: '{"use":{"browserName":"ie"}}' },
      /"config" is not a valid run config: config\.use\.browserName: /,
    ],
    [{ 'target-url': 'preview' }, /"target-url" must be an http\(s\) URL/],
    [{ browser: 'edge' }, /"browser" must be one of chromium, firefox, webkit, got "edge"/],
    [{ environment: 'Staging' }, /"environment" must be an environment name .* got "Staging"/],
    [{ wait: 'yes' }, /"wait" must be true or false, got "yes"/],
    [{ 'timeout-minutes': 'ten' }, /"timeout-minutes" must be a number/],
    [{ 'timeout-minutes': '0' }, /"timeout-minutes" must be between 1 and 360/],
    [{ 'poll-interval-seconds': '-1' }, /"poll-interval-seconds" must be a number/],
    [{ 'poll-interval-seconds': '900' }, /"poll-interval-seconds" must be between 1 and 300/],
    [
      { 'fail-on': 'failed,flaky' },
      /"fail-on" must list outcomes among failed, cancelled, timeout, error .* got "flaky"/,
    ],
    [{ artifacts: 'some' }, /"artifacts" must be one of all, failed, none/],
    [{ 'artifact-name': 'a/b' }, /"artifact-name" must not contain/],
    [{ 'artifact-retention-days': '91' }, /"artifact-retention-days" must be between 1 and 90/],
    [{ summary: '1' }, /"summary" must be true or false/],
    [{ 'pr-comment': 'always' }, /"pr-comment" must be one of update, new, off/],
    [{ 'comment-mode': 'matrix' }, /"comment-mode" must be one of per-job, aggregate, got "matrix"/],
    [
      { 'comment-mode': 'aggregate', 'pr-comment': 'new' },
      /"comment-mode" aggregate keeps one comment up to date: it needs "pr-comment" update, not new/,
    ],
    [{ annotations: 'on' }, /"annotations" must be true or false/],
  ])('rejects %j', (extra, message) => rejects(extra, message));

  it('comment-mode aggregate with the default pr-comment', async () => {
    expect(await parse({ 'comment-mode': 'Aggregate' })).toMatchObject({
      commentMode: 'aggregate',
      prComment: 'update',
    });
  });

  it('lists every problem at once, each with its path', async () => {
    const error = await parse({
      'api-key': '',
      wait: 'maybe',
      'test-ids': `${uuid(1)},nope`,
      config: JSON.stringify({ retries: -1, use: { browserName: 'ie' } }),
      'target-url': 'preview',
      'timeout-minutes': '0',
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InputError);
    const problems = (error as Error).message.split('; ');
    expect(problems).toEqual([
      'Input "api-key" is required',
      'Input "test-ids" must contain UUIDs, got "nope"',
      expect.stringMatching(
        /^Input "config" is not a valid run config: config\.(retries|use\.browserName): /,
      ),
      expect.stringMatching(/^config\.(retries|use\.browserName): /),
      'Input "target-url" must be an http(s) URL, got "preview"',
      'Input "wait" must be true or false, got "maybe"',
      'Input "timeout-minutes" must be between 1 and 360, got 0',
    ]);
    expect((error as Error).message).toContain('config.retries: ');
    expect((error as Error).message).toContain('config.use.browserName: ');
  });
});
