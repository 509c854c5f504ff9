import type { DataSet, ResolvedRunConfig, StepNode } from '@stepdeck/contract';
import type { StepOutline } from './outline.ts';

/**
 * What the compiler needs to turn tests into a Playwright Test project. The tests module
 * builds these from storage (`modules/tests/executable.ts`); the runner and the `pw` export
 * both feed them to `compileProject` (`runner/compiler/index.ts`).
 */
export interface CompilableTest {
  id: string;
  name: string;
  type: 'ui' | 'api';
  /** The test's own stored config (unresolved); run overrides are applied on top. */
  config: Record<string, unknown>;
  vars: Record<string, unknown> | null;
  parameters: Record<string, unknown> | null;
  /** The table the test runs over, one Playwright test per row; absent or null: it runs once. */
  dataSet?: DataSet | null;
  /** Top-level steps, shared steps resolved, children ordered. */
  steps: StepNode[];
  /** Files for `setInputFiles` steps, by filename. */
  files: Array<{ filename: string; content: Buffer; stepId: string }>;
}

export interface CompileInput {
  tests: CompilableTest[];
  /** Run-level config: the merged overrides when running; `{}` for an export. */
  config: ResolvedRunConfig | null;
  /**
   * Names of the project's secrets. Their values are never written into files: the
   * generated code reads `process.env.STEPDECK_SECRET_<NAME>` at run time.
   */
  secretNames: string[];
  /** Where the email steps poll (base URL of this service and an API key env var name). */
  inboxApi?: { baseUrl: string };
}

/** A Playwright Test project as files: relative path → content. */
export interface CompiledProject {
  files: Map<string, Buffer | string>;
  /** Relative path of each test's spec file, by test id. */
  specFiles: Map<string, string>;
  /** Each test's step tree as the user wrote it, by test id (names failing steps in results). */
  outlines?: Map<string, StepOutline[]>;
  /**
   * What running the project needs (added by the runner): a browser (some test uses a page)
   * and ffmpeg (some project records video). The executor checks these before starting.
   */
  requirements?: { browser: boolean; video: boolean };
}
