/**
 * `assertAccessible`: axe-core run in the page, copied beside `stepdeck-runtime.ts` into a
 * project whose tests use it; `axe-core` is then one of the project's dependencies. Its source
 * is evaluated in the frame of the checked element (as `@axe-core/playwright` does, so a
 * page's Content Security Policy does not stop it), then `axe.run` checks that element.
 */
import type { Locator } from '@playwright/test';
import axe from 'axe-core';

export type Impact = 'minor' | 'moderate' | 'serious' | 'critical';
const IMPACTS: Impact[] = ['minor', 'moderate', 'serious', 'critical'];

export interface AccessibilityOptions {
  /** The least severe impact that fails the step (default `serious`). */
  impact?: Impact;
  /** axe rule ids not run. */
  skipRules?: string[];
}

export interface Violation {
  id: string;
  impact: Impact | null;
  targets: string[];
}

/** How many rules and, per rule, how many elements a failure lists. */
const LISTED_RULES = 10;
const LISTED_TARGETS = 5;

interface AxeResults {
  violations: Array<{ id: string; impact?: string | null; nodes: Array<{ target: unknown[] }> }>;
}

/** The violations under `scope` at or above the threshold, most severe first. */
export async function accessibilityViolations(
  scope: Locator,
  options: AccessibilityOptions = {},
): Promise<Violation[]> {
  const element = await scope.elementHandle();
  try {
    const frame = await element.ownerFrame();
    if (!frame) throw new Error('the element is no longer in a page');
    const loaded = await frame.evaluate(
      () => typeof (window as { axe?: { run?: unknown } }).axe?.run === 'function',
    );
    if (!loaded) await frame.evaluate(axe.source);
    const rules = Object.fromEntries((options.skipRules ?? []).map((id) => [id, { enabled: false }]));
    const results = await element
      .evaluate(
        (node, runOptions) =>
          (
            window as unknown as { axe: { run(context: Element, options: unknown): Promise<unknown> } }
          ).axe.run(node as Element, runOptions),
        { rules, resultTypes: ['violations'] },
      )
      .catch((error: Error) => {
        throw new Error(
          `axe-core could not check the page: ${error.message.replace(/^.*?evaluate:\s*/, '')}`,
        );
      });
    const threshold = IMPACTS.indexOf(options.impact ?? 'serious');
    return (results as AxeResults).violations
      .map((violation) => ({
        id: violation.id,
        impact: IMPACTS.includes(violation.impact as Impact) ? (violation.impact as Impact) : null,
        targets: violation.nodes.map((node) =>
          node.target.map((part) => (Array.isArray(part) ? part.join(' >>> ') : String(part))).join(' '),
        ),
      }))
      .filter((violation) => violation.impact !== null && IMPACTS.indexOf(violation.impact) >= threshold)
      .sort((a, b) => IMPACTS.indexOf(b.impact as Impact) - IMPACTS.indexOf(a.impact as Impact));
  } finally {
    await element.dispose();
  }
}

/**
 * The failure for `violations`, e.g. `3 accessibility violations (serious or worse):
 * color-contrast (serious) at #a, .b; label (critical) at input[name=q]`; null when none.
 */
export function describeViolations(violations: Violation[], impact: Impact = 'serious'): string | null {
  if (violations.length === 0) return null;
  const count = violations.reduce((sum, violation) => sum + violation.targets.length, 0);
  const level = impact === 'critical' ? 'critical' : `${impact} or worse`;
  const listed = violations.slice(0, LISTED_RULES).map((violation) => {
    const shown = violation.targets.slice(0, LISTED_TARGETS).join(', ');
    const more = violation.targets.length - LISTED_TARGETS;
    return `${violation.id} (${violation.impact}) at ${shown}${more > 0 ? ` and ${more} more` : ''}`;
  });
  const moreRules = violations.length - LISTED_RULES;
  return `${count} accessibility violation${count === 1 ? '' : 's'} (${level}): ${listed.join('; ')}${
    moreRules > 0 ? `; and ${moreRules} more rule${moreRules === 1 ? '' : 's'}` : ''
  }`;
}

/** `assertAccessible`: fails listing the violations under `scope` at or above the threshold. */
export async function assertAccessible(scope: Locator, options: AccessibilityOptions = {}): Promise<void> {
  const failure = describeViolations(await accessibilityViolations(scope, options), options.impact);
  if (failure) throw new Error(failure);
}
