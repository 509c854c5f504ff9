import type { StepAction, StepNode } from '@stepdeck/contract';

/**
 * The step tree of a compiled test as the user wrote it: what the runner needs to name a
 * failing step (title, action in the user's words, condition) without reading generated code.
 * The runtime makes exactly one `test.step` per node, in this order, so Playwright's step
 * report lines up with it node for node.
 */
export interface StepOutline {
  stepId: string;
  /** The `test.step` title the compiler gave it. */
  title: string;
  /** The name shown to the user: the step's name, else its description, else its action. */
  name: string;
  /** The action in the user's words, e.g. `assertText #out`. */
  action: string;
  condition: 'skip' | 'alwaysRun' | 'if' | null;
  children: StepOutline[];
}

const MAX_LABEL = 120;

/** The title a step runs under (its name, else the action's description, else the action). */
export function stepTitle(step: StepNode): string {
  const name = step.name?.trim();
  if (name) return name;
  return step.action.description?.trim() || step.action.name;
}

/**
 * The action and its main argument as written (templates unresolved, so no secret value).
 * Typed values (fill, request bodies) stay out: they can be long and are not what names a step.
 */
export function actionLabel(action: StepAction): string {
  const argument = ((): string | undefined => {
    switch (action.name) {
      case 'goto':
        return action.url;
      case 'press':
        return [action.selector, action.key].filter(Boolean).join(' ');
      case 'wait':
        return `${action.ms} ms`;
      case 'assertUrl':
      case 'assertTitle':
        return action.value;
      case 'request':
        return `${action.method} ${action.url}`;
      case 'assertStatus':
        return String(action.value);
      case 'assertJson':
        return action.path;
      case 'waitForEmail':
        return action.inbox;
      case 'evaluate':
      case 'assertScript':
        return action.script.replace(/\s+/g, ' ').trim();
      case 'dragTo':
        return `${action.selector} → ${action.target}`;
      case 'switchTab':
        return action.index !== undefined
          ? `index ${action.index}`
          : action.url !== undefined
            ? `url ${action.url}`
            : `title ${action.title}`;
      case 'closeTab':
        return action.index === undefined ? undefined : `index ${action.index}`;
      case 'dispatchEvent':
        return `${action.selector} ${action.event}`;
      case 'assertAttribute':
        return `${action.selector} ${action.attribute}`;
      case 'assertCss':
        return `${action.selector} ${action.property}`;
      case 'assertScreenshot':
        return action.selector ?? 'page';
      case 'mockRoute':
        return action.abort ? `${action.url} (abort)` : action.url;
      case 'waitForResponse':
        return action.method ? `${action.method} ${action.url}` : action.url;
      case 'totp':
        // The variable, never the secret's value (the template is not resolved here anyway).
        return `→ vars.${action.variable}`;
      case 'assertAccessible':
        return action.selector ?? 'page';
      case 'measureVitals':
        return action.label;
      case 'assertVitals':
        return vitalLimitsLabel(action);
      case 'screenshot':
      case 'gotoEmailLink':
      case 'group':
      case 'reload':
      case 'goBack':
      case 'goForward':
        return undefined;
      default: {
        const selector = (action as { selector?: unknown }).selector;
        return typeof selector === 'string' ? selector : undefined;
      }
    }
  })();
  // A negated assertion says so: `assertClass not #item`.
  const negated = (action as { not?: unknown }).not === true ? ' not' : '';
  // A step in a frame names it: `click #pay in iframe#shop`.
  const frame = (action as { frame?: string | string[] }).frame;
  const inFrame = frame === undefined ? '' : ` in ${[frame].flat().join(' › ')}`;
  const label = argument
    ? `${action.name}${negated} ${argument}${inFrame}`
    : `${action.name}${negated}${inFrame}`;
  return label.length > MAX_LABEL ? `${label.slice(0, MAX_LABEL - 1)}…` : label;
}

/** `assertVitals`'s limits as read: `LCP ≤ 2500 ms, CLS ≤ 0.1`. */
function vitalLimitsLabel(
  limits: Partial<Record<'lcpMs' | 'cls' | 'inpMs' | 'tbtMs' | 'fcpMs' | 'ttfbMs', number>>,
) {
  const parts = (['lcpMs', 'cls', 'inpMs', 'tbtMs', 'fcpMs', 'ttfbMs'] as const).flatMap((key) => {
    const limit = limits[key];
    if (limit === undefined) return [];
    return key === 'cls' ? [`CLS ≤ ${limit}`] : [`${key.slice(0, -2).toUpperCase()} ≤ ${limit} ms`];
  });
  return parts.join(', ');
}

export function outlineSteps(steps: StepNode[]): StepOutline[] {
  return steps.map((step) => ({
    stepId: step.id,
    title: stepTitle(step),
    name: step.name?.trim() || step.action.description?.trim() || actionLabel(step.action),
    action: actionLabel(step.action),
    condition: step.condition?.type ?? null,
    // Only a group's children become steps of their own (see actionCode).
    children: step.action.name === 'group' ? outlineSteps(step.children ?? []) : [],
  }));
}
