import type { StepNode } from '@stepdeck/contract';
import type { CompilableTest } from './types.ts';

/** What every action family needs to write code: literals, names, the test's files. */

/** A JS literal for any JSON value; U+2028/2029 are escaped so nothing can end a comment line. */
export const lit = (value: unknown): string =>
  value === undefined
    ? 'undefined'
    : JSON.stringify(value)
        .replace(/\u2028/g, '\\u2028')
        .replace(/\u2029/g, '\\u2029');

/** Lower-case ASCII slug for file names; never empty, never `..`. */
export function slug(value: string, max = 60): string {
  const cleaned = value
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, max)
    .replace(/-+$/g, '');
  return cleaned || 'test';
}

/** A single path segment that keeps the original name where it is safe (uploads keep their name). */
export function safeSegment(value: string): string {
  const base = value.split(/[\\/]/).pop() ?? '';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we strip
  const cleaned = base.replace(/[\u0000-\u001f<>:"|?*]/g, '_').slice(0, 120);
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? 'file' : cleaned;
}

/** A user string as code: templated (`{{vars.x}}`...) at run time. */
export const templated = (value: string) => `sd.t(${lit(value)})`;
/**
 * A locator for a user selector: `page.locator()` through the runtime, which resolves templates
 * and, when the step fails on it, suggests the page's closest elements (`heal`).
 */
export const locator = (selector: string) => `sd.locator(page, ${lit(selector)})`;

interface FileRef {
  /** Project-relative path written into the project. */
  relative: string;
  content: Buffer;
}

export interface TestContext {
  test: CompilableTest;
  fileDir: string;
  files: Map<string, FileRef>;
  /** Files written for this test (relative path → content). */
  out: Map<string, Buffer>;
}

export function fileFor(ctx: TestContext, step: StepNode, filename: string): string | null {
  const key = `${step.id}\u0000${filename}`;
  const known = ctx.files.get(key);
  if (known) return known.relative;
  const match =
    ctx.test.files.find((file) => file.stepId === step.id && file.filename === filename) ??
    ctx.test.files.find((file) => file.filename === filename);
  if (!match) return null;
  const relative = `${ctx.fileDir}/${safeSegment(step.id)}/${safeSegment(filename)}`;
  ctx.files.set(key, { relative, content: match.content });
  ctx.out.set(relative, match.content);
  return relative;
}
