import { type DataSet, runConfig, stepTree, type testDetailResponse } from '@stepdeck/contract';
import type { z } from 'zod';
import { actionErrors } from '../../lib/action-fields.ts';
import { type EditorStep, fromWire } from '../../lib/step-tree-edit.ts';
import type { TestData } from './TestDataPanel.tsx';

/** Whether an action fails the contract's check; cached per action object (unchanged steps keep theirs). */
const errorsByAction = new WeakMap<object, boolean>();
export function hasErrors(action: Record<string, unknown>): boolean {
  let known = errorsByAction.get(action);
  if (known === undefined) {
    known = Object.keys(actionErrors(action)).length > 0;
    errorsByAction.set(action, known);
  }
  return known;
}

/** The editor's working state of a test: what a save sends. */
export interface Draft extends TestData {
  steps: EditorStep[];
  status: string;
  config: Record<string, unknown>;
  /** The table the test runs over, once per row; null: it runs once. */
  dataSet: DataSet | null;
  editVersion: number;
}

/** The editable state of a test, as the server has it. */
export function draftOf(detail: z.infer<typeof testDetailResponse>): Draft {
  return {
    steps: fromWire(stepTree.parse(detail.steps)),
    status: detail.test.status,
    config: detail.test.config,
    dataSet: detail.test.dataSet ?? null,
    editVersion: detail.test.editVersion,
    vars: detail.test.vars,
    parameters: detail.test.parameters,
    tagIds: detail.test.tags.map((tag) => tag.id),
  };
}

/** The run configuration as the contract takes it, or the first problem, named by its field. */
export function checkedConfig(config: Record<string, unknown>) {
  const result = runConfig.safeParse(config);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new Error(`Run configuration: ${issue?.path.join('.')}: ${issue?.message}`);
}
