/**
 * The runner's libraries: the Playwright compiler (steps → a Playwright Test project) and the
 * executor (runs that project with `playwright test` in its own process group).
 */
export {
  CHROMIUM_ARGS,
  compileProject,
  DEFAULT_ACTION_TIMEOUT_MS,
  EXPECTATION_ANNOTATION,
  maxCompiledStepDepth,
  RUNTIME_FILE,
  screenshotSteps,
  secretEnvVar,
  TEST_ID_ANNOTATION,
  testNeedsPage,
  visualBaselineFile,
} from './compiler/index.ts';
export type { StepOutline } from './compiler/outline.ts';
export type { CompilableTest, CompiledProject, CompileInput } from './compiler/types.ts';
export {
  type ExecutedArtifact,
  type ExecutedTest,
  type ExecutedTestStatus,
  type ExecuteOptions,
  type ExecutionResult,
  executeProject,
  ffmpegDirName,
  linkPlaywright,
  prepareBrowsersPath,
  type VisualCheck,
  writeProject,
} from './executor.ts';
export { visualPictureName } from './report-map.ts';
