import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ResolvedRunConfig } from '@stepdeck/contract';
import { lit } from './code.ts';
import {
  CHROMIUM_ARGS,
  EGRESS_CHROMIUM_ARGS,
  EGRESS_PROXY_ENV_VAR,
  RUNTIME_PART_FILES,
  SANDBOX_ENV_VAR,
  secretEnvVar,
} from './constants.ts';
import { configUseLines, DEVICE, type ProjectGroup, usesDevice } from './context-options.ts';
import type { CompileInput } from './types.ts';

/**
 * The project's files around the specs: `playwright.config.ts` (one Playwright project per
 * distinct worker config, see context-options.ts), the README naming the secrets' variables, the runtime's source (its parts and
 * siblings read from `runtime/` as they are, since a project runs them unmodified).
 */

const require = createRequire(import.meta.url);

export function playwrightVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(require.resolve('@playwright/test/package.json'), 'utf8')) as {
      version: string;
    };
    return manifest.version;
  } catch {
    return '1.65.1';
  }
}

let runtimeSource: string | undefined;
export function runtime(): string {
  runtimeSource ??= readFileSync(new URL('./runtime/stepdeck-runtime.ts', import.meta.url), 'utf8');
  return runtimeSource;
}

const runtimePartSources = new Map<string, string>();
/** The runtime's parts (`RUNTIME_PART_FILES`), each file name with its source. */
export function runtimeParts(): Array<[file: string, source: string]> {
  return RUNTIME_PART_FILES.map((file) => {
    let source = runtimePartSources.get(file);
    if (source === undefined) {
      source = readFileSync(new URL(`./runtime/${file}`, import.meta.url), 'utf8');
      runtimePartSources.set(file, source);
    }
    return [file, source];
  });
}

let emailRuntimeSource: string | undefined;
export function emailRuntime(): string {
  emailRuntimeSource ??= readFileSync(new URL('./runtime/stepdeck-email.ts', import.meta.url), 'utf8');
  return emailRuntimeSource;
}

let pageRuntimeSource: string | undefined;
export function pageRuntime(): string {
  pageRuntimeSource ??= readFileSync(new URL('./runtime/stepdeck-page.ts', import.meta.url), 'utf8');
  return pageRuntimeSource;
}

let tabsRuntimeSource: string | undefined;
export function tabsRuntime(): string {
  tabsRuntimeSource ??= readFileSync(new URL('./runtime/stepdeck-tabs.ts', import.meta.url), 'utf8');
  return tabsRuntimeSource;
}

let healRuntimeSource: string | undefined;
export function healRuntime(): string {
  healRuntimeSource ??= readFileSync(new URL('./runtime/stepdeck-heal.ts', import.meta.url), 'utf8');
  return healRuntimeSource;
}

let suggestRuntimeSource: string | undefined;
export function suggestRuntime(): string {
  suggestRuntimeSource ??= readFileSync(new URL('./runtime/stepdeck-suggest.ts', import.meta.url), 'utf8');
  return suggestRuntimeSource;
}

let visualRuntimeSource: string | undefined;
export function visualRuntime(): string {
  visualRuntimeSource ??= readFileSync(new URL('./runtime/stepdeck-visual.ts', import.meta.url), 'utf8');
  return visualRuntimeSource;
}

let vitalsRuntimeSource: string | undefined;
export function vitalsRuntime(): string {
  vitalsRuntimeSource ??= readFileSync(new URL('./runtime/stepdeck-vitals.ts', import.meta.url), 'utf8');
  return vitalsRuntimeSource;
}

/** The packages `stepdeck-visual.ts` imports, at the versions the runner has. */
export function visualDependencies(): Record<string, string> {
  const version = (name: string) => {
    try {
      return (
        JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as { version: string }
      ).version;
    } catch {
      return 'latest';
    }
  };
  return { pixelmatch: version('pixelmatch'), pngjs: version('pngjs') };
}

/** The worker-scoped `use` of a project (see context-options.ts). */
function workerUse(config: ResolvedRunConfig): Record<string, unknown> {
  return {
    browserName: config.use.browserName,
    headless: true,
    trace: config.use.trace,
    video: config.use.video,
    screenshot: config.use.screenshot,
  };
}

/**
 * The headers and credentials of a project's `use`: code, not literals, because their
 * `{{secrets.X}}` are read from the environment when the config loads, never written here.
 */
function credentialLines(config: ResolvedRunConfig): string[] {
  const { extraHTTPHeaders, httpCredentials } = config.environment;
  const lines: string[] = [];
  if (extraHTTPHeaders) {
    const entries = Object.entries(extraHTTPHeaders).map(
      ([name, value]) => `${lit(name)}: fill(${lit(value)})`,
    );
    lines.push(`        extraHTTPHeaders: { ${entries.join(', ')} },`);
  }
  if (httpCredentials)
    lines.push(
      `        httpCredentials: { username: fill(${lit(httpCredentials.username)}), password: fill(${lit(httpCredentials.password)}) },`,
    );
  return lines;
}

/** `fill()` of the generated config: `{{secrets.X}}` and `{{env.X}}` from the environment. */
const fillSource = [
  `// {{secrets.NAME}} and {{env.NAME}} in headers and credentials, from the environment.`,
  `function fill(template: string): string {`,
  `  return template.replace(/{{s*(secrets|env).([^}s]+)s*}}/g, (_match, kind: string, name: string) => {`,
  `    const variable = \`STEPDECK_\${kind === 'secrets' ? 'SECRET' : 'ENV'}_\${name.replace(/[^A-Za-z0-9_]/g, '_')}\`;`,
  `    const value = process.env[variable];`,
  `    if (value === undefined) throw new Error(\`\${kind === 'secrets' ? 'secret' : 'variable'} "\${name}" is not set (environment \${variable})\`);`,
  `    return value;`,
  `  });`,
  `}`,
];

export function configSource(groups: ProjectGroup[], single: boolean): string {
  const workers = Math.max(...groups.map((group) => group.config.workers));
  const usesDevices = groups.some((group) => usesDevice(group.shared));
  const usesFill = groups.some(
    (group) => group.config.environment.extraHTTPHeaders || group.config.environment.httpCredentials,
  );
  const projects = groups.map((group, index) => {
    const { config } = group;
    const device = group.shared.filter(([key]) => key === DEVICE);
    const context = group.shared.filter(([key]) => key !== DEVICE);
    const name = single ? 'stepdeck' : `stepdeck-${index + 1}`;
    const lines = [`    {`, `      name: ${lit(name)},`];
    if (!single) {
      const patterns = group.specs.map(
        (spec) => `/(^|[\\\\/])${path.posix.basename(spec).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$/`,
      );
      lines.push(`      testMatch: [${patterns.join(', ')}],`);
    }
    lines.push(
      `      retries: ${lit(config.retries)},`,
      `      timeout: ${lit(config.timeout)},`,
      `      repeatEach: ${lit(config.repeatEach)},`,
      `      use: {`,
      ...configUseLines(device, '        '),
      ...Object.entries(workerUse(config)).map(([key, value]) => `        ${key}: ${lit(value)},`),
      ...configUseLines(context, '        '),
      ...credentialLines(config),
      ...(config.use.browserName === 'chromium' ? ['        launchOptions: chromiumLaunchOptions,'] : []),
      // The request fixture's (and every browser context's) way out: the egress proxy.
      `        ...egressUse,`,
      `      },`,
      `    },`,
    );
    return lines.join('\n');
  });
  return [
    `// Generated by Stepdeck. Run with: npx playwright test`,
    `import { existsSync } from 'node:fs';`,
    `import { defineConfig${usesDevices ? ', devices' : ''} } from '@playwright/test';`,
    '',
    ...(usesFill ? [...fillSource, ''] : []),
    `// Set by the Stepdeck service: its runner's egress proxy. Unset (as here by default): none.`,
    `const egressProxy = process.env.${EGRESS_PROXY_ENV_VAR} ? { server: process.env.${EGRESS_PROXY_ENV_VAR} } : undefined;`,
    `// Chromium: CHROMIUM_PATH, else the Debian package, else Playwright's own browser.`,
    `const executablePath = process.env.CHROMIUM_PATH || (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);`,
    `const chromiumLaunchOptions = {`,
    `  ...(executablePath ? { executablePath } : {}),`,
    `  args: egressProxy ? ${lit([...CHROMIUM_ARGS, ...EGRESS_CHROMIUM_ARGS])} : ${lit(CHROMIUM_ARGS)},`,
    `  // Chromium's own sandbox when the runner isolates runs (Playwright's default, off, elsewhere).`,
    `  chromiumSandbox: process.env.${SANDBOX_ENV_VAR} === '1',`,
    `  ...(egressProxy ? { proxy: egressProxy } : {}),`,
    `};`,
    `const egressUse = egressProxy ? { proxy: egressProxy } : {};`,
    '',
    `export default defineConfig({`,
    `  testDir: './tests',`,
    `  outputDir: './test-results',`,
    `  forbidOnly: true,`,
    `  fullyParallel: false,`,
    `  workers: ${lit(workers)},`,
    `  reporter: [['list'], ['html', { open: 'never', outputFolder: 'playwright-report' }]],`,
    `  projects: [`,
    ...projects,
    `  ],`,
    `});`,
    '',
  ].join('\n');
}

export function readme(input: CompileInput): string {
  const secrets = [...input.secretNames].sort();
  return [
    '# Stepdeck tests (Playwright)',
    '',
    'Generated by Stepdeck. Run with:',
    '',
    '```sh',
    'npm install',
    'npx playwright test',
    '```',
    '',
    'Environment:',
    '',
    "- `CHROMIUM_PATH`: the Chromium to use (default `/usr/bin/chromium` when present, else Playwright's own).",
    '- `STEPDECK_API_URL`, `STEPDECK_API_KEY`: the Stepdeck service and a key with `emailInbox:read`, for email steps.',
    `- \`${EGRESS_PROXY_ENV_VAR}\`: set by the Stepdeck service to its runner's egress proxy; leave it unset here (no proxy).`,
    ...(secrets.length > 0
      ? [
          '- Secrets are never written into these files; set them as environment variables:',
          ...secrets.map((name) => `  - \`${secretEnvVar(name)}\``),
        ]
      : []),
    '',
  ].join('\n');
}
