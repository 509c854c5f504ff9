/**
 * A step's locators for `stepdeck-runtime.ts`, copied beside it into every compiled project:
 * `sd.locator` and `sd.frame` look a selector up (inside the step's `<iframe>`s, if any) and
 * note it, so that when the step fails because its locator found nothing (or several
 * elements), the page's closest elements can be recorded (`stepdeck-heal.ts`) and, with
 * `heal: retry`, the step run once more with the best of them. It imports only
 * `@playwright/test` and its siblings.
 */
import type { Locator, Page, TestInfo } from '@playwright/test';
import { diagnoseLocator, type HealMode } from './stepdeck-heal.ts';
import { retryChoice } from './stepdeck-suggest.ts';
import { frameScope } from './stepdeck-tabs.ts';

/** Result annotation with a failing locator's suggestions and, healed, the one used (JSON). */
export const HEAL_ANNOTATION = 'stepdeck-heal';

/** One test's locators: those of the running step, and the suggestion standing in for one. */
export class StepLocators {
  private readonly testInfo: TestInfo;
  /** `heal`: what a step whose locator finds nothing (or several) gets: suggestions, a retry. */
  private readonly heal: HealMode;
  /** The locators the running step made: the selector as written and as it ran. */
  private located: Array<{ page: Page; selector: string; resolved: string }> = [];
  /** While `heal: retry` runs a step again: its selector → the suggestion used instead. */
  private readonly replacements = new Map<string, string>();
  /** The `<iframe>`s (outer first) the running step's selectors are looked up in (`frame`). */
  private frames: string[] = [];

  constructor(testInfo: TestInfo, heal: HealMode) {
    this.testInfo = testInfo;
    this.heal = heal;
  }

  /** A step starts in the page itself; its `frame` option, when it has one, comes first. */
  startStep(): void {
    this.frames = [];
  }

  /** The running step's `frame` option (templates already resolved). */
  frame(frames: string[]): void {
    this.frames = frames;
  }

  /**
   * `page.locator()` for a step's selector, `resolve`d (templates) unless a healed step is
   * running again, when the suggestion stands in for it; noted so a failure can be diagnosed.
   */
  locator(page: Page, selector: string, resolve: (selector: string) => string): Locator {
    const resolved = this.replacements.get(selector) ?? resolve(selector);
    // Suggestions read the page's own elements, not a frame's: a step in a frame gets none.
    if (this.frames.length === 0) this.located.push({ page, selector, resolved });
    return frameScope(page, this.frames).locator(resolved);
  }

  /**
   * Runs a step's body (`attempt`); when it fails because its locator found nothing (or
   * several elements), records the page's closest elements and, with `heal: retry`, attempts
   * once more with the best of them: the step then passes, recorded as healed. A group's
   * children note their own locators, so each level diagnoses only its own.
   */
  async healing(stepId: string | undefined, attempt: () => Promise<void>): Promise<void> {
    const outer = this.located;
    this.located = [];
    try {
      await attempt();
    } catch (error) {
      const message = error instanceof Error ? error.message : '';
      // The locator the error names (a drag has two), else the step's first.
      const used = this.located.find((entry) => message.includes(entry.resolved)) ?? this.located[0];
      if (this.heal === 'off' || stepId === undefined || !used) throw error;
      const record = await diagnoseLocator(
        used.page,
        { stepId, selector: used.selector, resolved: used.resolved },
        error,
      );
      if (!record) throw error;
      const choice = this.heal === 'retry' ? retryChoice(record.suggestions) : null;
      if (choice) {
        this.replacements.set(used.selector, choice.selector);
        try {
          await attempt();
          record.healed = { selector: choice.selector, locator: choice.locator };
        } catch {
          // The suggestion did not do it either: the step fails with its own error.
        } finally {
          this.replacements.delete(used.selector);
        }
      }
      this.testInfo.annotations.push({ type: HEAL_ANNOTATION, description: JSON.stringify(record) });
      if (!record.healed) throw error;
    } finally {
      this.located = outer;
    }
  }
}
