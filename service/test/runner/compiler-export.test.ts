import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileProject, linkPlaywright, writeProject } from '../../src/runner/index.ts';
import {
  exportedRunEnv,
  group,
  removeTempDirs,
  type Site,
  startSite,
  step,
  tempDir,
  uiTest,
} from './fixtures.ts';
import {
  passingVocabularySteps,
  startVocabularySite,
  TODO_TOKEN,
  type VocabularySite,
} from './vocabulary-site.ts';

const run = promisify(execFile);

describe('compiled project runs unmodified with npx playwright test', () => {
  let site: Site;
  let todoApp: VocabularySite;
  beforeAll(async () => {
    site = await startSite();
    todoApp = await startVocabularySite();
  });
  afterAll(async () => {
    await site.close();
    await todoApp.close();
    await removeTempDirs();
  });

  it('exports a pw project that passes against a loopback page', async () => {
    const project = compileProject({
      tests: [
        uiTest(
          '11111111-aaaa-4bbb-8ccc-000000000001',
          'Greets "the" visitor </script>',
          [
            step('Open home', { name: 'goto', url: '/' }),
            step('Title', { name: 'assertTitle', value: 'Stepdeck Demo' }),
            group('Greeting', [
              step('Type name', { name: 'fill', selector: '#name', value: '{{parameters.who}}' }),
              step('Click', { name: 'click', selector: 'text=Greet' }),
              step('Check greeting', {
                name: 'assertText',
                selector: '#greeting',
                value: 'Hello, Ada',
                exact: true,
              }),
            ]),
            step('Keep heading', { name: 'extract', selector: '#heading', variable: 'heading' }),
            step(
              'Only if heading',
              { name: 'assertText', selector: 'h1', value: 'Welcome' },
              {
                condition: { type: 'if', variable: 'heading', equals: 'Welcome' },
              },
            ),
            step('Never', { name: 'assertTitle', value: 'not this' }, { condition: { type: 'skip' } }),
            step('Count', { name: 'assertCount', selector: 'li', value: 3 }),
            step('Follow', { name: 'click', selector: '#next' }),
            step('On next', { name: 'assertUrl', value: '/next' }),
          ],
          { parameters: { who: 'Ada' }, config: { use: { baseURL: site.url } } },
        ),
        {
          id: '11111111-aaaa-4bbb-8ccc-000000000002',
          name: 'Items API',
          type: 'api',
          config: { use: { baseURL: site.url } },
          vars: null,
          parameters: null,
          files: [],
          steps: [
            step('List', { name: 'request', method: 'GET', url: '/api/items' }),
            step('OK', { name: 'assertStatus', value: 200 }),
            step('First', { name: 'assertJson', path: '$.data[0].name', value: 'seven' }),
          ],
        },
        // History, element states, events and page scripts, a secret inside a script included.
        uiTest('11111111-aaaa-4bbb-8ccc-000000000003', 'Todo app', passingVocabularySteps(), {
          vars: { item: 'Buy milk' },
          config: { use: { baseURL: todoApp.url } },
        }),
      ],
      config: null,
      secretNames: ['API_TOKEN', 'TODO_TOKEN'],
    });
    const dir = await tempDir('export');
    // What the `pw` export zips: exactly the compiled files.
    await writeProject(dir, project);
    const packageJson = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    expect(packageJson.type).toBe('module');
    expect(packageJson.devDependencies['@playwright/test']).toBe('1.65.1');
    expect(await fs.readdir(path.join(dir, 'tests'))).toHaveLength(3);
    // The one thing `npm install` would add.
    await linkPlaywright(dir);

    const { stdout } = await run('npx', ['playwright', 'test', '--reporter=line'], {
      cwd: dir,
      env: await exportedRunEnv({ STEPDECK_SECRET_TODO_TOKEN: TODO_TOKEN }),
      timeout: 120_000,
    }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`npx playwright test failed:\n${error.stdout}\n${error.stderr}`);
    });
    expect(stdout).toMatch(/3 passed/);
    expect(stdout).not.toMatch(/failed/);
  }, 240_000);
});
