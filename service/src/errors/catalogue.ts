/**
 * Every error the service answers with: a stable `code` (sent in the body beside `message`,
 * for programs to branch on), its HTTP status and its message. Messages are the spec's words
 * where the spec names them; a message that carries values is a function of them. Code throws
 * `appError('CODE', ...values)` (errors.ts), so a message is written once, here.
 *
 * Codes are part of the API: never rename or reuse one; add a new one instead.
 */
export interface CatalogueEntry {
  status: number;
  message: string | ((...values: never[]) => string);
}

export const errorCatalogue = {
  // Credentials and access (the spec's words).
  INVALID_API_KEY: { status: 401, message: 'Invalid API key' },
  /** The spec's 403 for a key lacking a required scope: an empty message. */
  MISSING_SCOPE: { status: 403, message: '' },
  LICENSE_REQUIRED: { status: 403, message: 'LICENSE_REQUIRED' },
  NO_ACTIVE_PROJECT: { status: 400, message: 'No active project' },
  PROJECT_NOT_FOUND: { status: 404, message: 'Project not found' },
  BRANCH_NOT_FOUND: { status: 404, message: 'Branch not found' },
  SESSION_REQUIRED: {
    status: 401,
    message: 'Console session required: sign in with POST /console/v1/session',
  },
  ADMIN_ROLE_REQUIRED: { status: 403, message: 'This action needs an admin or owner role' },
  OWNER_ROLE_REQUIRED: { status: 403, message: 'This action needs the owner role' },
  CSRF_HEADER_REQUIRED: {
    status: 403,
    message: (header: string) =>
      `Cross-site request refused: a console request that changes data needs the ${header} header`,
  },
  INVALID_CREDENTIALS: { status: 401, message: 'Invalid email or password' },
  SIGN_IN_THROTTLED: { status: 429, message: 'Too many failed sign-ins; try again later' },
  PASSWORD_CHANGE_THROTTLED: { status: 429, message: 'Too many wrong passwords; try again later' },
  /** The route counts these like failed sign-ins. */
  WRONG_CURRENT_PASSWORD: { status: 400, message: 'currentPassword: the current password is wrong' },
  PASSWORD_UNCHANGED: { status: 400, message: 'newPassword: must differ from the current password' },
  METRICS_TOKEN_REQUIRED: {
    status: 401,
    message: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>',
  },
  SIGNATURE_INVALID: { status: 403, message: 'Invalid or expired signature' },

  // Organization, users, keys, projects, tags.
  INSTALL_OWNER_REQUIRED: {
    status: 403,
    message: 'Only an install administrator can create organizations',
  },
  INSTALL_ADMIN_REQUIRED: {
    status: 403,
    message:
      "Only an install administrator can do this (organizations, their subscription and limits are set by the people who run the install, not by an organization's owners)",
  },
  LAST_INSTALL_ADMIN: {
    status: 409,
    message: 'The last install administrator cannot be removed: grant another one first',
  },
  ORGANIZATION_NOT_FOUND: { status: 404, message: 'Organization not found' },
  INSTALL_ORGANIZATION_PROTECTED: {
    status: 409,
    message: "The install's own organization cannot be suspended or deleted",
  },
  ORGANIZATION_SUSPENDED: {
    status: 403,
    message: 'This organization is suspended: ask an install administrator',
  },
  // Single sign-on (modules/sso): each names what went wrong, for the page the browser lands on.
  SSO_REQUIRED: {
    status: 403,
    message:
      'This organization signs in with single sign-on: use "Sign in with single sign-on" (passwords are refused for its members)',
  },
  SSO_ORGANIZATION_UNKNOWN: {
    status: 404,
    message: (org: string) =>
      `No organization signs in with single sign-on as "${org}" (an email domain or the organization's sign-on name)`,
  },
  SSO_PROVIDER_NOT_FOUND: { status: 404, message: 'This organization has no single sign-on provider' },
  SSO_PROVIDER_UNAVAILABLE: {
    status: 502,
    message: (issuer: string, detail: string) =>
      `The identity provider ${issuer} could not be reached: ${detail}`,
  },
  SSO_SIGN_IN_EXPIRED: {
    status: 400,
    message: 'This single sign-on attempt is unknown to this browser or expired (10 minutes): start again',
  },
  SSO_STATE_MISMATCH: {
    status: 400,
    message:
      "The identity provider's answer does not belong to this browser's sign-in (state mismatch): start again",
  },
  SSO_PROVIDER_REFUSED: {
    status: 400,
    message: (detail: string) => `The identity provider refused the sign-in: ${detail}`,
  },
  SSO_ANSWER_INVALID: {
    status: 400,
    message: (detail: string) => `The identity provider's answer failed verification: ${detail}`,
  },
  SSO_EMAIL_MISSING: {
    status: 400,
    message: 'The identity provider sent no verified email address for this account (the email claim)',
  },
  SSO_NO_MAPPED_GROUP: {
    status: 403,
    message: (claim: string) =>
      `None of your groups (claim "${claim}") gives access to this organization: ask its administrators to map one to a role`,
  },
  SSO_ACCOUNT_ELSEWHERE: {
    status: 409,
    message: "This email belongs to another organization's account on this install: it cannot sign in here",
  },
  SSO_CLIENT_SECRET_REQUIRED: {
    status: 400,
    message: 'clientSecret: required when the provider is first set',
  },
  SSO_ISSUER_INSECURE: {
    status: 400,
    message: 'issuerUrl: must use https (plain http only for localhost and 127.0.0.1)',
  },
  SSO_ISSUER_DISCOVERY_FAILED: {
    status: 400,
    message: (issuer: string, detail: string) =>
      `issuerUrl: issuer ${issuer} did not answer discovery: ${detail}`,
  },
  SSO_ISSUER_MISMATCH: {
    status: 400,
    message: (found: string, expected: string) =>
      `issuerUrl: the issuer in the discovery document is ${found}, not ${expected}`,
  },
  SSO_SLUG_TAKEN: {
    status: 409,
    message: (slug: string) => `slug: another organization signs in as "${slug}"`,
  },
  SSO_DOMAIN_TAKEN: {
    status: 409,
    message: (domain: string) => `emailDomains: ${domain} already leads to another organization's provider`,
  },
  SSO_BREAK_GLASS_REQUIRED: {
    status: 400,
    message: 'breakGlassEmail: name one owner who may still use a password while single sign-on is required',
  },
  SSO_BREAK_GLASS_NOT_OWNER: {
    status: 400,
    message: (email: string) => `breakGlassEmail: ${email} is not an owner of this organization`,
  },
  CONCURRENCY_CAP_OVER_SLOTS: {
    status: 400,
    message: (slots: number) =>
      `concurrencyCap: must be at most ${slots}, the runner slots of this install (RUNNER_SLOTS)`,
  },
  OWNER_REQUIRED_TO_ADD_OWNER: { status: 403, message: 'Only an owner can add another owner' },
  OWNER_REQUIRED_TO_CHANGE_ROLES: { status: 403, message: 'Only an owner can change roles' },
  OWNER_REQUIRED_TO_REMOVE_OWNER: { status: 403, message: 'Only an owner can remove an owner' },
  LAST_OWNER_DEMOTION: {
    status: 409,
    message: 'The last owner cannot be demoted: make another user an owner first',
  },
  LAST_OWNER_REMOVAL: {
    status: 409,
    message: 'The last owner cannot be removed: make another user an owner first',
  },
  USER_NOT_FOUND: { status: 404, message: 'User not found' },
  USER_EMAIL_TAKEN: { status: 409, message: (email: string) => `A user with email ${email} already exists` },
  API_KEY_SCOPES_REQUIRED: { status: 400, message: 'scopes: an API key needs at least one scope' },
  API_KEY_NOT_FOUND: { status: 404, message: 'API key not found' },
  BRANCH_NAME_TAKEN: {
    status: 409,
    message: (name: string) => `A branch named "${name}" already exists in this project`,
  },
  TAG_NOT_FOUND: { status: 404, message: 'Tag not found' },
  TAG_NAME_TAKEN: { status: 409, message: (name: string) => `A tag named "${name}" already exists` },
  SECRET_NOT_FOUND: { status: 404, message: 'Secret not found' },

  // Tests, directories and revisions.
  /** With ids, names the ones that are missing. */
  TEST_NOT_FOUND: {
    status: 404,
    message: (missing?: string) => (missing ? `Test not found: ${missing}` : 'Test not found'),
  },
  PARENT_TEST_NOT_FOUND: { status: 404, message: 'Parent test not found' },
  REVISION_NOT_FOUND: { status: 404, message: 'Revision not found' },
  /** The zod description of what is wrong with `testData`. */
  TEST_DATA_INVALID: { status: 400, message: (issues: string) => issues },
  TEST_LIST_FILTER_CONFLICT: {
    status: 400,
    message: "testId and topLevel=true cannot be combined: a directory's children are not at the top level",
  },
  DIRECTORY_HAS_NO_STEPS: { status: 400, message: 'testData.steps: a directory has no steps' },
  PARENT_NOT_DIRECTORY: { status: 400, message: 'parentTestId: the parent test is not a directory' },
  MOVE_INTO_SELF: { status: 400, message: 'parentTestId: a test cannot be moved into itself' },
  MOVE_INTO_DESCENDANT: {
    status: 400,
    message: 'parentTestId: a directory cannot be moved into one of its own descendants',
  },
  NAME_TOO_LONG: { status: 400, message: 'name: must be at most 128 characters' },
  NO_UNSAVED_CHANGES: { status: 400, message: 'No unsaved changes to save as a revision' },
  /** The caller's `editVersion` is not the test's: someone else saved in between. */
  EDIT_VERSION_CONFLICT: {
    status: 409,
    message: (given: string, current: string) =>
      `Edit conflict: the test changed since editVersion ${given} (current editVersion ${current})`,
  },
  /** A concurrent write won between this update's read and its write. */
  EDIT_CONFLICT: { status: 409, message: 'Edit conflict: the test changed during the update' },
  TEST_IN_ACTIVE_SCHEDULES: {
    status: 400,
    message: (names: string) => `Test is referenced by active schedules: ${names}`,
  },
  FIELD_REQUIRED: { status: 400, message: (field: string) => `${field} is required` },
  FIELD_NOT_JSON: { status: 400, message: (field: string) => `${field} must be a JSON string` },
  MULTIPART_REQUIRED: { status: 400, message: 'Expected multipart/form-data' },
  UNEXPECTED_FILE_FIELD: { status: 400, message: (field: string) => `Unexpected file field "${field}"` },
  TOO_MANY_FILES: {
    status: 400,
    message: (field: string, max: number) => `${field}: at most ${max} file per request`,
  },
  FILE_NAME_INVALID: { status: 400, message: (filename: string) => `files: invalid file name "${filename}"` },
  FILE_WITHOUT_STEP: {
    status: 400,
    message: (filename: string) => `files: no setInputFiles child of the group names "${filename}"`,
  },

  // Export and import.
  EXPORT_SELECTION_REQUIRED: {
    status: 400,
    message: 'Select tests to export with testIds, tagIds or directoryId',
  },
  EXPORT_SELECTION_EMPTY: { status: 400, message: 'No tests match the selection' },
  EXPORT_TOO_MANY_TESTS: {
    status: 400,
    message: (max: number, selected: number) => `Export is limited to ${max} tests; ${selected} selected`,
  },
  EXPORT_TOO_MANY_STEPS: {
    status: 400,
    message: (max: number, tests: number, steps: number) =>
      `Export is limited to ${max} steps; the ${tests} selected tests have ${steps}: export fewer at a time`,
  },
  EXPORT_TOO_MANY_BYTES: {
    status: 400,
    message: (max: number, tests: number, bytes: number) =>
      `Export is limited to ${max} bytes of steps; the ${tests} selected tests' steps take ${bytes}: export fewer at a time`,
  },
  IMPORT_FILE_REQUIRED: { status: 400, message: 'file is required: a ZIP produced by POST /v1/tests/export' },
  IMPORTS_BUSY: {
    status: 429,
    message: (limit: number) => `Too many imports in progress (limit ${limit}); retry shortly`,
  },
  /** The archive cannot be read safely: malformed, too many entries, an unsafe path or too large. */
  ARCHIVE_REJECTED: { status: 400, message: (reason: string) => reason },
  ARCHIVE_MANIFEST_MISSING: { status: 400, message: 'Archive has no manifest.json' },
  ARCHIVE_MANIFEST_NOT_JSON: { status: 400, message: 'manifest.json is not valid JSON' },
  ARCHIVE_MANIFEST_INVALID: { status: 400, message: (issues: string) => `manifest.json: ${issues}` },
  ARCHIVE_FORMAT_UNSUPPORTED: {
    status: 400,
    message: (given: string, expected: number) =>
      `Unsupported export format version ${given} (expected ${expected})`,
  },

  // Steps.
  STEP_NOT_FOUND: { status: 404, message: 'Step not found' },
  STEP_NOT_GROUP: { status: 400, message: 'Step is not a group' },
  /** Body: `tests`, `branches` and `sharedGroups` that still use the step. */
  STEP_IN_USE: { status: 400, message: 'Step is still used by tests and cannot be deleted' },
  CHILDREN_NOT_ARRAY: { status: 400, message: 'children must be a JSON array' },
  /** The zod description of what is wrong with `stepData`. */
  STEP_DATA_INVALID: { status: 400, message: (issues: string) => issues },
  // A step of a tree breaks a rule: the message names the step (its label or path) and the rule.
  STEP_NOT_OBJECT: { status: 400, message: (label: string) => `${label}: must be an object` },
  STEP_TOO_DEEP: {
    status: 400,
    message: (path: string, max: number) => `${path}: groups may nest at most ${max} levels deep`,
  },
  STEP_NAME_NOT_STRING: {
    status: 400,
    message: (label: string) => `step (${label}): name: must be a string`,
  },
  STEP_NAME_TOO_LONG: {
    status: 400,
    message: (label: string, max: number) => `step (${label}): name: at most ${max} characters`,
  },
  STEP_ACTION_REQUIRED: { status: 400, message: (label: string) => `${label}: action: action is required` },
  /** The contract's description of the step's invalid action (`describeActionError`). */
  STEP_ACTION_INVALID: { status: 400, message: (description: string) => description },
  STEP_CONDITION_INVALID: {
    status: 400,
    message: (label: string, issues?: string) =>
      `${label}: condition: ${issues ?? 'must be {type:"skip"}, {type:"alwaysRun"} or {type:"if", variable, equals}'}`,
  },
  STEP_CHILDREN_NOT_ARRAY: {
    status: 400,
    message: (label: string) => `${label}: children: must be an array`,
  },
  STEP_CHILDREN_NOT_GROUP: {
    status: 400,
    message: (label: string) => `${label}: children: only a group step has children`,
  },
  TOO_MANY_STEPS: {
    status: 400,
    message: (max: number, who: string, steps: number) =>
      `A test has at most ${max} steps (MAX_STEPS_PER_TEST); ${who} would have ${steps}`,
  },
  STEPS_TOO_LARGE: {
    status: 400,
    message: (max: number, who: string, bytes: number) =>
      `A test's steps take at most ${max} bytes (MAX_STEP_TREE_BYTES); ${who} would take ${bytes}`,
  },

  // Runs.
  RUN_NOT_FOUND: { status: 404, message: 'Test run not found' },
  QUARANTINE_NOT_FOUND: { status: 404, message: 'The test is not in quarantine' },
  QUARANTINE_EXPIRY_PAST: { status: 400, message: 'expiresAt must be in the future' },
  RUN_SELECTION_INVALID: { status: 400, message: 'Provide exactly one of testIds or tagId' },
  RUN_TEST_IDS_EMPTY: { status: 400, message: 'testIds must contain at least one test id' },
  NO_EXECUTABLE_TESTS: {
    status: 400,
    message: 'No executable tests: only active leaf tests run in directory, tag and bulk runs',
  },
  RUN_TOO_MANY_TESTS: {
    status: 400,
    message: (active: number, max: number) =>
      `Too many tests: ${active} active tests, at most ${max} per run`,
  },
  PRESET_REQUIRES_SESSION: {
    status: 400,
    message: 'presetId: config presets are used from the console only; API keys pass config',
  },
  RUN_ALREADY_ACTIVE: { status: 409, message: 'Test already has a run that is pending, queued or running' },
  RUN_COOLDOWN: {
    status: 429,
    message: (between: 'bulk runs' | 'runs of a test') =>
      `Remote-run cooldown: wait 10 seconds between ${between}`,
  },
  CONCURRENCY_LIMIT: { status: 429, message: 'concurrency limit exceeded' },
  RUN_ALREADY_FINISHED: { status: 400, message: (status: string) => `Run is already ${status}` },
  REPORT_NOT_READY: {
    status: 400,
    message: (status: string) => `Report is available for completed or failed runs; this run is ${status}`,
  },
  DATE_INVALID: { status: 400, message: (name: string) => `${name} must be an ISO 8601 date` },
  ARTIFACT_NOT_FOUND: { status: 404, message: 'Artifact not found' },
  VISUAL_CHANGE_NOT_FOUND: { status: 404, message: 'Visual change not found in this run' },
  VISUAL_CHANGE_DECIDED: {
    status: 409,
    message: 'This visual change was already approved or rejected',
  },
  VISUAL_IMAGE_NOT_FOUND: { status: 404, message: 'This picture of the visual change is not stored' },
  VISUAL_BASELINE_NOT_FOUND: { status: 404, message: 'Visual baseline not found' },
  VISUAL_QUOTA_EXCEEDED: {
    status: 409,
    message: (refusal: string) =>
      `Approving would store baselines past the quota, so nothing was approved: ${refusal}`,
  },
  // Locator suggestions: applying one of a run's suggestions to the test's working revision.
  LOCATOR_SUGGESTIONS_NOT_FOUND: {
    status: 404,
    message: 'This run has no locator suggestions for that test and step',
  },
  LOCATOR_NOT_SUGGESTED: {
    status: 422,
    message: (locator: string) => `"${locator}" is not one of the step's suggestions in this run`,
  },
  TEST_CHANGED_SINCE_RUN: {
    status: 409,
    message: (detail: string) =>
      `The test's working revision changed since the run: ${detail}; run it again for fresh suggestions`,
  },
  ARTIFACT_KEY_INVALID: { status: 400, message: 'Invalid artifact key' },
  ARTIFACT_KEY_NOT_OF_RUN: { status: 400, message: 'querystring.key: must be an artifact key of the run' },

  // Presets and schedules.
  PRESET_NOT_FOUND: { status: 404, message: 'Preset not found' },
  PRESET_NAME_TAKEN: {
    status: 409,
    message: (name: string) => `A preset named "${name}" already exists in this project`,
  },
  /** Body: the `schedules` (id, name) that use the preset. */
  PRESET_IN_USE: {
    status: 409,
    message: (count: number, names: string) => `Preset is used by schedule${count > 1 ? 's' : ''} ${names}`,
  },
  // Environments.
  ENVIRONMENT_NOT_FOUND: { status: 404, message: 'Environment not found' },
  /** A run, schedule or preset named an environment the project does not have. */
  ENVIRONMENT_UNKNOWN: {
    status: 400,
    message: (name: string) => `environment: the project has no environment named "${name}"`,
  },
  ENVIRONMENT_NAME_TAKEN: {
    status: 409,
    message: (name: string) => `An environment named "${name}" already exists in this project`,
  },
  SCHEDULE_NOT_FOUND: { status: 404, message: 'Schedule not found' },
  SCHEDULE_SUBSCRIPTION_LAPSED: {
    status: 403,
    message:
      "The organization's subscription is not active: schedules cannot be created or enabled until it is renewed",
  },
  SCHEDULE_SELECTION_INVALID: { status: 400, message: 'Exactly one of testIds or tagId is required' },
  SCHEDULE_TEST_IDS_EMPTY: { status: 400, message: 'testIds must contain at least one test ID' },
  TIMEZONE_INVALID: { status: 400, message: (timezone: string) => `Invalid timezone: ${timezone}` },
  CRON_INVALID: {
    status: 400,
    message: (cron: string, reason: string) => `Invalid cron expression '${cron}': ${reason}`,
  },

  // Email inboxes.
  INBOX_NOT_FOUND: { status: 404, message: 'Inbox not found' },
  INBOX_ID_INVALID: { status: 400, message: 'inboxId must be an inbox UUID or its full email address' },
  INBOX_LIMIT_REACHED: { status: 400, message: 'inbox limit reached' },
  INBOX_CREATION_CONSOLE_ONLY: {
    status: 403,
    message:
      'Email inboxes are created in the console only (POST /console/v1/email-inboxes with a console session)',
  },
  MESSAGE_NOT_FOUND: { status: 404, message: 'Message not found' },

  // Webhooks.
  WEBHOOK_NOT_FOUND: { status: 404, message: 'Webhook not found' },
  DELIVERY_NOT_FOUND: { status: 404, message: 'Delivery not found' },
  DELIVERY_PENDING: {
    status: 409,
    message: 'Delivery is still pending: wait for its attempts to finish before retrying',
  },
  WEBHOOK_EVENTS_REQUIRED: { status: 400, message: 'events: at least one event is required' },
  CUSTOM_DATA_NOT_OBJECT: { status: 400, message: 'customData must be a JSON object' },
  CUSTOM_DATA_TOO_LARGE: {
    status: 400,
    message: (max: number, size: number) => `customData must be at most ${max} bytes as JSON (got ${size})`,
  },
  /** The target URL breaks a rule of the URL guard, which the message names. */
  WEBHOOK_URL_REFUSED: { status: 400, message: (rule: string) => rule },
  INSTALL_SETTING_INVALID: { status: 400, message: (problem: string) => problem },
  ALERT_CHANNEL_NOT_FOUND: { status: 404, message: 'Alert channel not found' },
  ALERT_CHANNEL_INVALID: { status: 400, message: (problem: string) => problem },
  SMTP_RELAY_NOT_SET: {
    status: 400,
    message:
      "Email alerts need the install's SMTP relay: an install administrator sets it under Install administration → Settings",
  },
  /** A run config's `device` is not in Playwright's registry, or not a Chromium one (named). */
  DEVICE_NOT_AVAILABLE: { status: 400, message: (problem: string) => problem },
  BROWSER_NOT_INSTALLED: {
    status: 400,
    /** With a test's name when that test's own config names the browser. */
    message: (browser: string, testName?: string) =>
      testName === undefined
        ? `${browser} is not installed on this service: run \`npx playwright install ${browser}\` where the service runs (see docs/runner.md), or choose chromium`
        : `test "${testName}" is configured for ${browser}, which is not installed on this runner: run npx playwright install ${browser}`,
  },

  // The request itself, as the framework or the error handler sees it.
  /** A request that does not match the route's schema; the message names each field at fault. */
  INVALID_REQUEST: { status: 400, message: (issues: string) => issues },
  BODY_REQUIRED: { status: 400, message: 'body: must not be empty: this route takes a JSON body' },
  /** Malformed JSON and other requests the framework refuses as 400, in its words. */
  MALFORMED_REQUEST: { status: 400, message: (detail: string) => detail },
  PAYLOAD_TOO_LARGE: { status: 413, message: (detail: string) => detail },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    message: (contentType: string) => `Unsupported Content-Type: ${contentType || '(none)'}`,
  },
  /** Any other 4xx the framework or a plugin answers with; the response keeps that status. */
  REQUEST_REFUSED: { status: 400, message: (detail: string) => detail },
  ROUTE_NOT_FOUND: {
    status: 404,
    message: (method: string, path: string) => `Route ${method} ${path} not found`,
  },
  /** The rate limiter's 429, whose body is the spec's `{ error: 'Too many requests' }`. */
  RATE_LIMITED: { status: 429, message: 'Too many requests' },
  CORRUPT_DATA: {
    status: 500,
    message: (where: string, detail: string) => `Corrupt stored data in ${where}: ${detail}`,
  },
  INTERNAL_ERROR: { status: 500, message: 'Internal Server Error' },

  // Live browser sessions of the console.
  LIVE_SESSION_NOT_FOUND: { status: 404, message: 'Live session not found' },
  LIVE_SESSION_PER_USER: {
    status: 429,
    message:
      'You already have a live browser open: close it (DELETE its live session) before starting another',
  },
  LIVE_SESSIONS_FULL: {
    status: 429,
    message: (max: number) =>
      `All ${max} live browser sessions of this install are in use (LIVE_SESSIONS_MAX): try again when one closes`,
  },
  LIVE_SESSION_URL_REFUSED: { status: 400, message: (reason: string) => `url: ${reason}` },
  LIVE_SESSION_ORIGIN_REFUSED: {
    status: 403,
    message: 'Cross-site WebSocket refused: a live session is streamed only to the console of this service',
  },
  LIVE_SESSION_BROWSER_UNAVAILABLE: {
    status: 503,
    message: (problem: string) => `No browser can be started for a live session: ${problem}`,
  },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof errorCatalogue;

/** The values an entry's message takes: none for a fixed message. */
export type MessageValues<C extends ErrorCode> = (typeof errorCatalogue)[C]['message'] extends (
  ...values: infer V
) => string
  ? V
  : [];
