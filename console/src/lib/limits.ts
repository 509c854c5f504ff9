import { createRevisionBody, createTestData, maxStepNameLength, presetName } from '@stepdeck/contract';

/**
 * How long each name the console asks for may be: the inputs' `maxLength`, so a name never
 * reaches the service too long (the service refuses it with 400) and every form stops at the
 * same limit. Read from the contract's schemas where it declares them.
 */

/**
 * API keys, projects, branches, tags, schedules and email inboxes: 128 characters. Only the
 * service's route schemas declare it (the `name` schema of service/src/modules/console/routes.ts,
 * of service/src/modules/schedules/routes.ts and of service/src/modules/inboxes/routes.ts), as
 * does the secret-name pattern of service/src/modules/tests/secrets-routes.ts (a letter or `_`
 * and at most 127 more).
 */
export const maxResourceNameLength = 128;

const declared = (limit: number | null, what: string): number => {
  if (limit === null) throw new Error(`the contract declares no length limit for ${what}`);
  return limit;
};

/** A config preset's name (`presetName`). */
export const maxPresetNameLength = declared(presetName.maxLength, 'preset names');
/** A test's or a directory's name (`createTestData.name`). */
export const maxTestNameLength = declared(createTestData.shape.name.maxLength, 'test names');
/** A revision's message (`createRevisionBody.message`). */
export const maxRevisionMessageLength = declared(
  createRevisionBody.shape.message.maxLength,
  'revision messages',
);
export { maxStepNameLength };
