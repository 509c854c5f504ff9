import { type StepActionName, stepActionSchemas } from '@stepdeck/contract';
import type { z } from 'zod';

/**
 * Form fields read from the contract's step-action schemas, so the editor's forms follow the
 * vocabulary without restating it: each schema's shape gives the fields, their kind and
 * whether they are required.
 */
export type FieldKind = 'text' | 'number' | 'boolean' | 'choice' | 'list' | 'json';
export interface ActionField {
  key: string;
  kind: FieldKind;
  required: boolean;
  choices: string[];
  /** What to type, for fields whose name does not say (read out with the field). */
  hint?: string;
}

const hints: Record<string, string> = {
  frame: 'the iframe selectors, outer first, one per line',
  json: 'the JSON body to answer with (or use body for text, or abort)',
  jsonPath: 'a path into the JSON body, e.g. $.items[0].name',
  secret: 'a {{secrets.NAME}} holding an otpauth://totp/ URI or a base32 key',
  skipRules: 'axe rule ids not checked, one per line (e.g. color-contrast)',
  lcpMs: 'largest contentful paint limit, ms (good: 2500)',
  cls: 'cumulative layout shift limit (good: 0.1)',
  inpMs: 'interaction to next paint limit, ms (good: 200); needs an interaction',
  tbtMs: 'total blocking time limit, ms (good: 200)',
  fcpMs: 'first contentful paint limit, ms (good: 1800)',
  ttfbMs: 'time to first byte limit, ms (good: 800)',
};

interface Introspected {
  def: { type: string; innerType?: z.ZodType; element?: z.ZodType; options?: Introspected[] };
  options?: readonly string[];
}

function describe(key: string, schema: z.ZodType): ActionField {
  let current = schema as unknown as Introspected;
  let required = true;
  while (current.def.type === 'optional' || current.def.type === 'default') {
    required = false;
    current = current.def.innerType as unknown as Introspected;
  }
  // A value or a list of them (`frame`): edited as a list, one per line.
  const listUnion = current.def.type === 'union' && current.def.options?.some((o) => o.def.type === 'array');
  const type = listUnion ? 'array' : current.def.type;
  const kind: FieldKind =
    type === 'string'
      ? 'text'
      : type === 'number'
        ? 'number'
        : type === 'boolean'
          ? 'boolean'
          : type === 'enum'
            ? 'choice'
            : type === 'array'
              ? 'list'
              : 'json';
  const field: ActionField = {
    key,
    kind,
    required,
    choices: kind === 'choice' ? [...(current.options ?? [])] : [],
  };
  const hint = hints[key];
  return hint ? { ...field, hint } : field;
}

const schemaByName = new Map(stepActionSchemas.map((schema) => [schema.shape.name.value, schema]));

/** The fields of one action, in the contract's order (`name` is the action's type, not a field). */
export function actionFields(name: string): ActionField[] {
  const schema = schemaByName.get(name as StepActionName);
  if (!schema) return [];
  return Object.entries(schema.shape as Record<string, z.ZodType>)
    .filter(([key]) => key !== 'name')
    .map(([key, field]) => describe(key, field));
}

/** Messages per field (`''` for the action as a whole) from the contract's own check. */
export function actionErrors(action: Record<string, unknown>): Record<string, string> {
  const schema = schemaByName.get(action.name as StepActionName);
  if (!schema) return { '': `unknown action ${String(action.name)}` };
  const result = schema.safeParse(action);
  const out: Record<string, string> = {};
  if (result.success) return out;
  for (const issue of result.error.issues) {
    const key = String(issue.path[0] ?? '');
    out[key] ??= issue.message;
  }
  return out;
}

/** A new action with its required fields empty (so the form shows what to fill). */
export function emptyAction(name: string): Record<string, unknown> {
  const action: Record<string, unknown> = { name };
  for (const field of actionFields(name)) {
    if (!field.required) continue;
    if (field.kind === 'text') action[field.key] = '';
    if (field.kind === 'list') action[field.key] = [];
    if (field.kind === 'choice') action[field.key] = field.choices[0];
    if (field.kind === 'number') action[field.key] = 0;
  }
  return action;
}

/** The palette: the vocabulary grouped by kind, each action once (checked by a unit test). */
export const paletteGroups: Array<{ label: string; actions: StepActionName[] }> = [
  { label: 'Navigation', actions: ['goto', 'reload', 'goBack', 'goForward', 'gotoEmailLink'] },
  {
    label: 'Interaction',
    actions: [
      'click',
      'dblclick',
      'hover',
      'fill',
      'type',
      'press',
      'check',
      'uncheck',
      'selectOption',
      'setInputFiles',
      'focus',
      'blur',
      'scrollIntoView',
      'dragTo',
      'dispatchEvent',
    ],
  },
  {
    label: 'Assertion',
    actions: [
      'assertVisible',
      'assertHidden',
      'assertText',
      'assertTexts',
      'assertValue',
      'assertChecked',
      'assertEnabled',
      'assertDisabled',
      'assertClass',
      'assertAttribute',
      'assertCss',
      'assertUrl',
      'assertTitle',
      'assertCount',
      'assertScreenshot',
      'assertAccessible',
    ],
  },
  { label: 'Tabs', actions: ['waitForPopup', 'switchTab', 'closeTab'] },
  { label: 'Page script', actions: ['evaluate', 'assertScript'] },
  { label: 'Data', actions: ['extract', 'screenshot', 'totp'] },
  { label: 'Network', actions: ['mockRoute', 'waitForResponse'] },
  { label: 'Performance', actions: ['measureVitals', 'assertVitals'] },
  { label: 'API', actions: ['request', 'assertStatus', 'assertJson'] },
  { label: 'Email', actions: ['waitForEmail'] },
  { label: 'Flow', actions: ['group', 'wait', 'waitFor'] },
];

/**
 * Where a save's 400 points, read from the service's wording
 * (`step "Log in" (steps[2].children[0]): action.selector: …`): the step's index path and field.
 */
export function locateStepError(
  message: string,
): { path: number[]; field: string; text: string } | undefined {
  const match = /\((steps(?:\[\d+\](?:\.children)?)+)\): (?:action\.)?([A-Za-z]+)?:? ?(.*)$/.exec(message);
  if (!match?.[1]) return undefined;
  const path = [...match[1].matchAll(/\[(\d+)\]/g)].map((part) => Number(part[1]));
  return { path, field: match[2] ?? '', text: match[3] ?? message };
}
