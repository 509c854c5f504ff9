import type { StepCondition } from '@stepdeck/contract';
import { chunk } from '../../adapters/db/index.ts';

/** The stored and shown forms of a step, shared by the step-tree files. */

/** A step in a revision tree as the API returns it. */
export interface StepView {
  id: string;
  revisionStepId: string;
  stepId: string;
  name: string;
  action: Record<string, unknown>;
  condition: StepCondition | null;
  metadata: Record<string, unknown> | null;
  order: number;
  group: boolean;
  shared: boolean;
  children: StepView[];
}

export type StepRow = {
  id: string;
  projectId: string;
  name: string;
  action: string;
  metadata: string | null;
  condition: string | null;
  shared: number;
  isGroup: number;
  type: 'ui' | 'api';
};

/** Screenshot data never leaves in list and detail responses. */
export function stripScreenshotData(action: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(action)) {
    if (/^screenshot(Data|Base64|Url|Image)?$/i.test(key) && key !== 'name') continue;
    copy[key] = value;
  }
  return copy;
}

export { chunk };
