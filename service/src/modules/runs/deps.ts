/**
 * What the runs module uses from the tests and console modules and the runner library, behind one seam
 * so the rest of the module depends on these signatures only.
 */
import { compileProject } from '../../runner/compiler/index.ts';
import { startEgressProxy } from '../../runner/egress-proxy.ts';
import {
  configureIsolation,
  configureStandbyRunners,
  type ExecutionResult,
  executeProject,
  stopStandbyRunners,
} from '../../runner/executor.ts';
import { findProject } from '../console/public.ts';
import {
  expandRunTargets,
  findWorkingMany,
  loadCompilableTests,
  loadProjectSecrets,
} from '../tests/public.ts';

export type { ExecutionResult };
export type RunTargets = Awaited<ReturnType<typeof expandRunTargets>>;

const testsApi = { expandRunTargets, findWorkingMany, loadCompilableTests, loadProjectSecrets };
const compilerApi = { compileProject };
const executorApi = { configureIsolation, configureStandbyRunners, executeProject, stopStandbyRunners };

export const tests = async () => testsApi;
/** Projects belong to the console module. */
export const projects = { findProject };
export const compiler = async () => compilerApi;
export const executor = async () => executorApi;
/** The runner's egress proxy (runner/egress-proxy.ts): every run of this process goes through it. */
export const egress = { startEgressProxy };
