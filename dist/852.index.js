export const id = 852;
export const ids = [852];
export const modules = {

/***/ 83852:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  fs: () => (/* reexport */ cancelRunResponse),
  QF: () => (/* reexport */ latestRunResponse),
  X$: () => (/* reexport */ pagination),
  tz: () => (/* reexport */ remoteRunResponse),
  c_: () => (/* reexport */ runArtifactsResponse),
  runConfig: () => (/* reexport */ runConfig),
  s$: () => (/* reexport */ terminalRunStatuses),
  up: () => (/* reexport */ testListItem),
  uE: () => (/* reexport */ testRunDetailResponse)
});

// UNUSED EXPORTS: allScopes, bulkDeleteBody, bulkRemoteRunBody, bulkUpdateStatusBody, bulkUpdateTagsBody, cancelRun, consoleBranch, consoleBranchesResponse, consoleObjectListResponse, consoleObjectResponse, consoleOrganization, consoleOrganizationResponse, consoleProject, consoleProjectsResponse, consoleRecord, consoleRecordListResponse, consoleRecordResponse, consoleRole, consoleScheduleSummary, consoleSchedulesResponse, consoleUser, consoleUserResponse, createRevisionBody, createTestData, createdTest, createdWebhookResponse, dataOf, definiteUrlScheme, deletedStepResponse, describeActionError, duplicateTestBody, duplicatedTestResponse, emailInbox, emailInboxLimitsResponse, emailInboxListResponse, emailInboxResponse, emailMessageListResponse, emailMessageResponse, errorBody, exportTestsBody, failedStep, fileAttachment, importResponse, isoTimestamp, listSharedStepsQuery, listTestsQuery, listTestsResponse, noPayloadResponse, projectSecretResponse, rateLimitBody, refusedUrlReason, remoteRunMany, remoteRunManyResponse, remoteRunResult, remoteRunSingle, remoteRunSingleResponse, replacedChildrenResponse, resolveRunConfig, revision, revisionDetailResponse, revisionResponse, revisionsResponse, rotatedSecretResponse, runArtifact, runMetadata, runReport, runStatistics, runStatisticsResponse, runStats, runStatus, runStepResult, runSummary, runTestResult, runTestsResponse, schedule, scheduleListResponse, scheduleResponse, scheduleTriggerResponse, scope, sharedStep, sharedStepListResponse, sharedStepResponse, signInBody, stepAction, stepActionNames, stepActionSchemas, stepChildrenResponse, stepCondition, stepInputList, stepOutcome, stepUsageResponse, stepView, testDetailResponse, testExportFormatVersion, testFilesResponse, testMetadataInput, testRun, testRunDetail, testRunLatestQuery, testRunListQuery, testRunListResponse, testStatus, testStepResponse, testStepsResponse, testType, testTypeFilter, updateStepData, updateTestData, updatedStepResponse, uuid, webhook, webhookDeliveryListResponse, webhookDeliveryResponse, webhookListResponse, webhookResponse, webhookSamplePayloadResponse

// EXTERNAL MODULE: ./node_modules/zod/v4/classic/schemas.js + 11 modules
var schemas = __webpack_require__(92857);
;// CONCATENATED MODULE: ./contract/src/common.ts

const errorBody = schemas/* object */.Ikc({ message: schemas/* string */.YjP() });
const rateLimitBody = schemas/* object */.Ikc({ error: schemas/* literal */.euz('Too many requests') });
const pagination = schemas/* object */.Ikc({
    page: schemas/* number */.aig().int(),
    limit: schemas/* number */.aig().int(),
    total: schemas/* number */.aig().int(),
    totalPages: schemas/* number */.aig().int(),
    hasMore: schemas/* boolean */.zMY(),
});
/** `{ data: T }`, the wrapper of almost every response. */
const dataOf = (payload) => schemas/* object */.Ikc({ data: payload });
const uuid = schemas/* uuid */.uRe({ error: 'must be a UUID' });
const isoTimestamp = schemas/* string */.YjP();
const runStatus = schemas/* enum */.k5n(['pending', 'queued', 'running', 'completed', 'failed', 'cancelled']);
const terminalRunStatuses = ['completed', 'failed', 'cancelled'];
const testStatus = schemas/* enum */.k5n(['draft', 'active', 'archived']);
/** `{ data: null }`: an operation with no payload. */
const noPayloadResponse = schemas/* object */.Ikc({ data: schemas/* null */.chJ() });

;// CONCATENATED MODULE: ./contract/src/console.ts


/**
 * Shapes of the `/console/v1` routes the web console reads (session, projects, branches,
 * organization, schedules). The service's handlers return these; the console parses them.
 */
const consoleRole = schemas/* enum */.k5n(['owner', 'admin', 'member']);
/** `POST` / `GET /console/v1/session`. */
const consoleUser = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    email: schemas/* string */.YjP(),
    role: consoleRole,
    organizationId: schemas/* string */.YjP(),
});
const consoleUserResponse = dataOf(consoleUser);
/** Body of `POST /console/v1/session`. */
const signInBody = schemas/* object */.Ikc({ email: schemas/* string */.YjP().min(1), password: schemas/* string */.YjP().min(1) });
/** Item of `GET /console/v1/projects`. */
const consoleProject = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    name: schemas/* string */.YjP(),
    defaultBranchId: schemas/* string */.YjP(),
    createdAt: isoTimestamp,
});
const consoleProjectsResponse = dataOf(schemas/* array */.YOg(consoleProject));
/** Item of `GET /console/v1/projects/:projectId/branches`. */
const consoleBranch = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    name: schemas/* string */.YjP(),
    sourceBranchId: schemas/* string */.YjP().nullable(),
    createdAt: isoTimestamp,
    isDefault: schemas/* boolean */.zMY(),
});
const consoleBranchesResponse = dataOf(schemas/* array */.YOg(consoleBranch));
/** `GET /console/v1/organization`. */
const consoleOrganization = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    name: schemas/* string */.YjP(),
    subscriptionActive: schemas/* boolean */.zMY(),
    concurrencyCap: schemas/* number */.aig().int(),
    createdAt: isoTimestamp,
});
const consoleOrganizationResponse = dataOf(consoleOrganization);
/** The fields of `GET /console/v1/schedules` items that the runs list's filter needs. */
const consoleScheduleSummary = schemas/* looseObject */._H3({ id: schemas/* string */.YjP(), name: schemas/* string */.YjP() });
const consoleSchedulesResponse = dataOf(schemas/* array */.YOg(consoleScheduleSummary));
/**
 * `metadata` of a run as the service records it at trigger time: what was run and who
 * started it (an API key's name, a schedule's name or a console user's email).
 */
const runMetadata = schemas/* looseObject */._H3({
    target: schemas/* looseObject */._H3({ type: schemas/* string */.YjP(), id: schemas/* string */.YjP().optional(), name: schemas/* string */.YjP().optional() })
        .optional(),
    trigger: schemas/* looseObject */._H3({ type: schemas/* string */.YjP(), name: schemas/* string */.YjP().optional() }).optional(),
});

;// CONCATENATED MODULE: ./contract/src/resources.ts


/**
 * Response shapes of the organization-level resources (inboxes, schedules, webhooks) and of
 * the console. Objects are open (`looseObject`): the fields named here are guaranteed, and a
 * field added later reaches clients without a contract change.
 */
const emailInbox = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    address: schemas/* string */.YjP(),
    name: schemas/* string */.YjP().nullable(),
    createdAt: schemas/* string */.YjP(),
    messageCount: schemas/* number */.aig().int(),
});
const emailInboxResponse = dataOf(emailInbox);
const emailInboxListResponse = dataOf(schemas/* array */.YOg(emailInbox));
const emailInboxLimitsResponse = dataOf(schemas/* object */.Ikc({
    maxPerOrg: schemas/* number */.aig().int(),
    maxMessages: schemas/* number */.aig().int(),
    messageRetentionHours: schemas/* number */.aig().int(),
    bodyMaxBytes: schemas/* number */.aig().int(),
}));
const emailMessageFields = {
    id: schemas/* string */.YjP(),
    fromAddress: schemas/* string */.YjP(),
    subject: schemas/* string */.YjP(),
    bodyText: schemas/* string */.YjP(),
    bodyHtml: schemas/* string */.YjP(),
    receivedAt: schemas/* string */.YjP(),
};
const emailMessageListResponse = dataOf(schemas/* array */.YOg(schemas/* looseObject */._H3({ ...emailMessageFields, urls: schemas/* array */.YOg(schemas/* string */.YjP()) })));
const emailMessageResponse = dataOf(schemas/* looseObject */._H3(emailMessageFields));
const schedule = schemas/* looseObject */._H3({ id: schemas/* string */.YjP(), name: schemas/* string */.YjP() });
const scheduleResponse = dataOf(schedule);
const scheduleListResponse = dataOf(schemas/* array */.YOg(schedule));
const scheduleTriggerResponse = dataOf(schemas/* object */.Ikc({
    runId: schemas/* string */.YjP(),
    status: schemas/* string */.YjP(),
    totalTests: schemas/* number */.aig().int().optional(),
    message: schemas/* string */.YjP().optional(),
}));
const webhookSamplePayloadResponse = dataOf(schemas/* looseObject */._H3({}));
const webhook = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    url: schemas/* string */.YjP(),
    events: schemas/* array */.YOg(schemas/* string */.YjP()),
    enabled: schemas/* boolean */.zMY(),
    customData: schemas/* record */.g1P(schemas/* string */.YjP(), schemas/* unknown */.L5J()).nullable(),
    createdAt: schemas/* string */.YjP(),
    updatedAt: schemas/* string */.YjP(),
});
const webhookResponse = dataOf(webhook);
/** `POST /console/v1/webhooks`: the only answer that shows the signing secret, with the rotation's. */
const createdWebhookResponse = dataOf(schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    url: schemas/* string */.YjP(),
    events: schemas/* array */.YOg(schemas/* string */.YjP()),
    enabled: schemas/* boolean */.zMY(),
    secret: schemas/* string */.YjP(),
}));
const rotatedSecretResponse = dataOf(schemas/* object */.Ikc({ id: schemas/* string */.YjP(), secret: schemas/* string */.YjP() }));
const webhookListResponse = dataOf(schemas/* array */.YOg(webhook));
const webhookDeliveryListResponse = dataOf(schemas/* array */.YOg(schemas/* looseObject */._H3({ id: schemas/* string */.YjP() })));
const webhookDeliveryResponse = dataOf(schemas/* looseObject */._H3({ id: schemas/* string */.YjP() }));
/** A console record: every console resource has an id. */
const consoleRecord = schemas/* looseObject */._H3({ id: schemas/* string */.YjP() });
const consoleRecordResponse = dataOf(consoleRecord);
const consoleRecordListResponse = dataOf(schemas/* array */.YOg(consoleRecord));
/** Console payloads that are not records (session, organization, subscription). */
const consoleObjectResponse = dataOf(schemas/* looseObject */._H3({}));
const consoleObjectListResponse = dataOf(schemas/* array */.YOg(schemas/* looseObject */._H3({})));
/** A project secret: its name and dates, never its value. */
const projectSecretResponse = dataOf(schemas/* looseObject */._H3({ name: schemas/* string */.YjP() }));

;// CONCATENATED MODULE: ./contract/src/run-config.ts

/** The spec's "Run configuration": accepted by create, update and remote-run. */
const runConfig = schemas/* object */.Ikc({
    use: schemas/* object */.Ikc({
        browserName: schemas/* enum */.k5n(['chromium', 'webkit', 'firefox']).optional(),
        baseURL: schemas/* string */.YjP().optional(),
        trace: schemas/* enum */.k5n(['off', 'on', 'retain-on-failure', 'on-first-retry']).optional(),
        video: schemas/* enum */.k5n(['off', 'on', 'retain-on-failure', 'on-first-retry']).optional(),
        screenshot: schemas/* enum */.k5n(['off', 'on', 'only-on-failure']).optional(),
        actionTimeout: schemas/* number */.aig().int().min(0).max(3_600_000).optional(),
        navigationTimeout: schemas/* number */.aig().int().min(0).max(3_600_000).optional(),
        headless: schemas/* boolean */.zMY().optional(),
    })
        .loose()
        .optional(),
    retries: schemas/* number */.aig().int().min(0).max(10).optional(),
    timeout: schemas/* number */.aig().int().min(0).max(7_200_000).optional(),
    workers: schemas/* number */.aig().int().min(1).max(64).optional(),
    repeatEach: schemas/* number */.aig().int().min(1).max(100).optional(),
    viewport: schemas/* object */.Ikc({
        width: schemas/* number */.aig().int().min(1).max(10_000).optional(),
        height: schemas/* number */.aig().int().min(1).max(10_000).optional(),
    })
        .optional(),
})
    .loose();
/** Layers configs left to right (test config, then run overrides); runs are always headless. */
function resolveRunConfig(...layers) {
    const merged = {};
    for (const layer of layers) {
        if (!layer)
            continue;
        Object.assign(merged, layer, {
            use: { ...merged.use, ...layer.use },
            viewport: { ...merged.viewport, ...layer.viewport },
        });
    }
    const use = merged.use ?? {};
    return {
        use: {
            browserName: use.browserName ?? 'chromium',
            baseURL: use.baseURL,
            trace: use.trace ?? 'retain-on-failure',
            video: use.video ?? 'off',
            screenshot: use.screenshot ?? 'only-on-failure',
            actionTimeout: use.actionTimeout ?? 0,
            navigationTimeout: use.navigationTimeout ?? 0,
            headless: true,
        },
        retries: merged.retries ?? 0,
        timeout: merged.timeout ?? 30_000,
        workers: merged.workers ?? 1,
        repeatEach: merged.repeatEach ?? 1,
        viewport: { width: merged.viewport?.width ?? 1920, height: merged.viewport?.height ?? 1080 },
    };
}

// EXTERNAL MODULE: ./node_modules/zod/v4/classic/coerce.js
var coerce = __webpack_require__(49567);
;// CONCATENATED MODULE: ./contract/src/runs.ts



/** `POST /v1/tests/:testId/remote-run` on a leaf test. */
const remoteRunSingle = schemas/* object */.Ikc({ runId: schemas/* string */.YjP(), status: runStatus });
const remoteRunSingleResponse = dataOf(remoteRunSingle);
/** Directory (single endpoint) and bulk (`POST /v1/tests/remote-run`) runs. */
const remoteRunMany = schemas/* object */.Ikc({
    runId: schemas/* string */.YjP(),
    status: runStatus,
    totalTests: schemas/* number */.aig().int(),
    message: schemas/* string */.YjP(),
});
const remoteRunManyResponse = dataOf(remoteRunMany);
/** Either shape: `totalTests`/`message` are absent for a single leaf. */
const remoteRunResult = schemas/* object */.Ikc({
    runId: schemas/* string */.YjP(),
    status: runStatus,
    totalTests: schemas/* number */.aig().int().optional(),
    message: schemas/* string */.YjP().optional(),
});
const remoteRunResponse = dataOf(remoteRunResult);
/** Body of `POST /v1/tests/remote-run`. */
const bulkRemoteRunBody = schemas/* object */.Ikc({
    testIds: schemas/* array */.YOg(schemas/* string */.YjP()).optional(),
    tagId: schemas/* string */.YjP().optional(),
    config: runConfig.optional(),
});
const runStats = schemas/* object */.Ikc({
    passed: schemas/* number */.aig().int(),
    failed: schemas/* number */.aig().int(),
    skipped: schemas/* number */.aig().int(),
    total: schemas/* number */.aig().int(),
});
/** Item of `GET /v1/test-runs`. */
const testRun = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    name: schemas/* string */.YjP(),
    status: runStatus,
    testId: schemas/* string */.YjP().nullable(),
    testRevisionId: schemas/* string */.YjP().nullable(),
    branchId: schemas/* string */.YjP(),
    testName: schemas/* string */.YjP().nullable(),
    branchName: schemas/* string */.YjP().nullable(),
    scheduleType: schemas/* string */.YjP().nullable(),
    createdAt: isoTimestamp,
    startedAt: isoTimestamp.nullable(),
    completedAt: isoTimestamp.nullable(),
    duration: schemas/* number */.aig().int().nullable(),
});
const testRunListResponse = schemas/* object */.Ikc({ data: schemas/* array */.YOg(testRun), pagination: pagination });
/** Outcome of one step the user wrote, in the attempt that decided the test's status. */
const stepOutcome = schemas/* enum */.k5n(['passed', 'failed', 'skipped', 'notRun']);
/**
 * One step of a test's step tree, flattened in document order: `path` holds the names from the
 * top-level step down to this one (test › group › step), `depth` its nesting level.
 */
const runStepResult = schemas/* object */.Ikc({
    stepId: schemas/* string */.YjP().nullable(),
    name: schemas/* string */.YjP(),
    /** The action in the user's words, e.g. `assertText #out` or `group`. */
    action: schemas/* string */.YjP().nullable(),
    path: schemas/* array */.YOg(schemas/* string */.YjP()),
    depth: schemas/* number */.aig().int(),
    status: stepOutcome,
    duration: schemas/* number */.aig().int(),
    error: schemas/* string */.YjP().nullable(),
});
/** The step that failed a test, as the user wrote it. */
const failedStep = schemas/* object */.Ikc({
    stepId: schemas/* string */.YjP().nullable(),
    name: schemas/* string */.YjP(),
    action: schemas/* string */.YjP().nullable(),
    path: schemas/* array */.YOg(schemas/* string */.YjP()),
});
/**
 * One test's outcome in a run report. `errorMessage` is the user-facing message (expectation,
 * what was received, the failing step; no generated code, no server paths) and `errorLocation`
 * the failing step's path (`Checkout › Pay › assertText #out`). The fields after `attempts`
 * are additive: `errorDetail` keeps Playwright's own text (ANSI stripped, secrets redacted).
 */
const runTestResult = schemas/* object */.Ikc({
    testId: schemas/* string */.YjP(),
    name: schemas/* string */.YjP(),
    status: schemas/* string */.YjP(),
    duration: schemas/* number */.aig().int(),
    errorMessage: schemas/* string */.YjP().nullable(),
    errorLocation: schemas/* string */.YjP().nullable(),
    attempts: schemas/* number */.aig().int().optional(),
    failedStep: failedStep.nullable().optional(),
    expected: schemas/* string */.YjP().nullable().optional(),
    received: schemas/* string */.YjP().nullable().optional(),
    errorDetail: schemas/* string */.YjP().nullable().optional(),
    /** Failed at least once, then passed on a retry. */
    flaky: schemas/* boolean */.zMY().optional(),
    steps: schemas/* array */.YOg(runStepResult).optional(),
});
/** `report` of a `completed` or `failed` run (null otherwise). */
const runReport = schemas/* object */.Ikc({
    status: runStatus,
    testName: schemas/* string */.YjP().nullable(),
    runName: schemas/* string */.YjP(),
    runId: schemas/* string */.YjP(),
    duration: schemas/* number */.aig().int(),
    completedAt: isoTimestamp.nullable(),
    branchId: schemas/* string */.YjP(),
    branchName: schemas/* string */.YjP().nullable(),
    scheduleName: schemas/* string */.YjP().nullable(),
    runTypeInfo: schemas/* object */.Ikc({
        /** `test`, `directory` or `tag`. */
        type: schemas/* string */.YjP(),
        name: schemas/* string */.YjP(),
        testResults: schemas/* array */.YOg(runTestResult),
        stats: runStats,
        runnerError: schemas/* string */.YjP().nullable().optional(),
    }),
});
/** `GET /v1/test-runs/:runId`. */
const testRunDetail = testRun.extend({
    projectId: schemas/* string */.YjP(),
    scheduleId: schemas/* string */.YjP().nullable(),
    config: schemas/* record */.g1P(schemas/* string */.YjP(), schemas/* unknown */.L5J()).nullable(),
    vars: schemas/* record */.g1P(schemas/* string */.YjP(), schemas/* unknown */.L5J()).nullable(),
    parameters: schemas/* record */.g1P(schemas/* string */.YjP(), schemas/* unknown */.L5J()).nullable(),
    metadata: schemas/* record */.g1P(schemas/* string */.YjP(), schemas/* unknown */.L5J()).nullable(),
    stats: runStats.nullable(),
    cancelledAt: isoTimestamp.nullable(),
    report: runReport.nullable(),
});
const testRunDetailResponse = dataOf(testRunDetail);
/** `GET /v1/test-runs/latest`. */
const runSummary = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    name: schemas/* string */.YjP(),
    status: runStatus,
    createdAt: isoTimestamp,
});
const latestRunResponse = dataOf(runSummary.nullable());
/** `GET /v1/test-runs/stats`. */
const runStatistics = schemas/* object */.Ikc({
    totalRuns: schemas/* number */.aig().int(),
    successRate: schemas/* number */.aig().int(),
    avgDuration: schemas/* number */.aig().int(),
    lastRun: isoTimestamp.nullable(),
    passed: schemas/* number */.aig().int(),
    failed: schemas/* number */.aig().int(),
    skipped: schemas/* number */.aig().int(),
});
const runStatisticsResponse = dataOf(runStatistics);
/** `GET /v1/test-runs/:runId/artifacts` item. */
const runArtifact = schemas/* object */.Ikc({
    key: schemas/* string */.YjP(),
    label: schemas/* string */.YjP(),
    type: schemas/* string */.YjP(),
    url: schemas/* string */.YjP(),
    testName: schemas/* string */.YjP().optional(),
});
const runArtifactsResponse = dataOf(schemas/* array */.YOg(runArtifact));
/** `GET /v1/test-runs/:runId/tests`. */
const runTestsResponse = dataOf(schemas/* array */.YOg(schemas/* object */.Ikc({ testId: schemas/* string */.YjP(), testName: schemas/* string */.YjP() })));
/** `POST /v1/test-runs/:runId/cancel`. */
const cancelRun = schemas/* object */.Ikc({ success: schemas/* boolean */.zMY(), message: schemas/* string */.YjP() });
const cancelRunResponse = dataOf(cancelRun);
/** Query of `GET /v1/test-runs`. */
const testRunListQuery = schemas/* object */.Ikc({
    limit: coerce/* number */.ai().int().min(1).max(500).default(20),
    page: coerce/* number */.ai().int().min(0).default(0),
    status: runStatus.optional(),
    name: schemas/* string */.YjP().optional(),
    testId: schemas/* uuid */.uRe({ error: 'testId must be a UUID' }).optional(),
    scheduleId: schemas/* uuid */.uRe({ error: 'scheduleId must be a UUID' }).optional(),
    branchId: schemas/* uuid */.uRe({ error: 'branchId must be a UUID' }).optional(),
    startDate: schemas/* string */.YjP().optional(),
    endDate: schemas/* string */.YjP().optional(),
});
/** Query of `GET /v1/test-runs/latest` and `/stats`. */
const testRunLatestQuery = schemas/* object */.Ikc({
    testId: schemas/* uuid */.uRe({ error: 'testId must be a UUID' }).optional(),
    scheduleId: schemas/* uuid */.uRe({ error: 'scheduleId must be a UUID' }).optional(),
    branchId: schemas/* uuid */.uRe({ error: 'branchId must be a UUID' }).optional(),
});

;// CONCATENATED MODULE: ./contract/src/scopes.ts

/** Every scope an API key can hold, from the spec's "Scopes" table. */
const allScopes = [
    'emailInbox:read',
    'emailInbox:delete',
    'tests:read',
    'tests:create',
    'tests:update',
    'tests:delete',
    'tests:run',
    'tests:cancel',
    'testRuns:read',
    'schedules:read',
    'schedules:run',
    'schedules:pause',
    'schedules:resume',
];
const scope = schemas/* enum */.k5n(allScopes, { error: `must be one of ${allScopes.join(', ')}` });

;// CONCATENATED MODULE: ./contract/src/step-actions.ts

/**
 * The step-action vocabulary. Every action is `{ name, description?, ...fields }`. String
 * values may use `{{vars.NAME}}`, `{{parameters.NAME}}` and `{{secrets.NAME}}`.
 */
const step_actions_text = (field) => schemas/* string */.YjP({ error: `${field} is required and must be a string` });
const selector = step_actions_text('selector').min(1, 'selector must not be empty');
const base = { description: schemas/* string */.YjP().optional() };
/**
 * The scheme a step's URL names for certain, lower-case without the colon, or null when it
 * names none yet: a path relative to `baseURL`, a `{{…}}` template in front, `localhost:3000`
 * (Playwright completes that to http). Tabs and newlines are dropped anywhere and controls and
 * spaces at the start, as the URL parser does, so `fi\tle:` is still `file`.
 */
function definiteUrlScheme(url) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the URL parser ignores these too
    const cleaned = url.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+/, '');
    if (cleaned.startsWith('localhost') || cleaned.startsWith('127.0.0.1'))
        return 'http';
    const match = /^([a-z][a-z0-9+.-]*):/i.exec(cleaned);
    return match?.[1] ? match[1].toLowerCase() : null;
}
/**
 * Why a navigation or request URL is refused, or null. Only http and https reach the browser
 * or the HTTP client (and `about:blank` for navigation): `file:` would read the server's own
 * files, `view-source:`, `chrome:`, `javascript:` and `data:` have no place in a test either.
 * The runtime checks again after `{{…}}` substitution and `baseURL` resolution.
 */
function refusedUrlReason(url, kind) {
    const scheme = definiteUrlScheme(url);
    if (scheme === null || scheme === 'http' || scheme === 'https')
        return null;
    if (kind === 'navigation' && url.trim().toLowerCase() === 'about:blank')
        return null;
    return `url must be an http or https URL or a path relative to baseURL; "${scheme}:" is not allowed`;
}
const webUrl = (kind) => step_actions_text('url').superRefine((url, ctx) => {
    const reason = refusedUrlReason(url, kind);
    if (reason)
        ctx.addIssue({ code: 'custom', message: reason });
});
const action = (name, shape) => schemas/* object */.Ikc({ name: schemas/* literal */.euz(name), ...base, ...shape }).loose();
const stepActionSchemas = [
    action('goto', { url: webUrl('navigation') }),
    action('click', { selector }),
    action('dblclick', { selector }),
    action('hover', { selector }),
    action('fill', { selector, value: step_actions_text('value') }),
    action('press', { selector: schemas/* string */.YjP().optional(), key: step_actions_text('key') }),
    action('check', { selector }),
    action('uncheck', { selector }),
    action('selectOption', { selector, value: step_actions_text('value') }),
    action('setInputFiles', {
        selector,
        files: schemas/* array */.YOg(schemas/* string */.YjP(), { error: 'files must be an array of filenames' }),
    }),
    action('wait', { ms: schemas/* number */.aig({ error: 'ms must be a number' }).int().min(0).max(3_600_000) }),
    action('waitFor', { selector, state: schemas/* enum */.k5n(['attached', 'detached', 'visible', 'hidden']).optional() }),
    action('assertVisible', { selector }),
    action('assertHidden', { selector }),
    action('assertText', { selector, value: step_actions_text('value'), exact: schemas/* boolean */.zMY().optional() }),
    action('assertValue', { selector, value: step_actions_text('value') }),
    action('assertUrl', { value: step_actions_text('value') }),
    action('assertTitle', { value: step_actions_text('value') }),
    action('assertCount', { selector, value: schemas/* number */.aig({ error: 'value must be a number' }).int().min(0) }),
    action('extract', { selector, variable: step_actions_text('variable'), attribute: schemas/* string */.YjP().optional() }),
    // The action's own `name` is its type, so the screenshot's file name is `label`.
    action('screenshot', { label: schemas/* string */.YjP().optional() }),
    action('request', {
        method: schemas/* enum */.k5n(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'], {
            error: 'method must be an HTTP method',
        }),
        url: webUrl('request'),
        headers: schemas/* record */.g1P(schemas/* string */.YjP(), schemas/* string */.YjP()).optional(),
        body: schemas/* unknown */.L5J().optional(),
        variable: schemas/* string */.YjP().optional(),
    }),
    action('assertStatus', { value: schemas/* number */.aig({ error: 'value must be a number' }).int() }),
    action('assertJson', { path: step_actions_text('path'), value: schemas/* unknown */.L5J() }),
    action('waitForEmail', {
        inbox: step_actions_text('inbox'),
        subjectContains: schemas/* string */.YjP().optional(),
        from: schemas/* string */.YjP().optional(),
        timeoutMs: schemas/* number */.aig().int().min(0).max(600_000).optional(),
        variable: step_actions_text('variable'),
    }),
    action('gotoEmailLink', { variable: step_actions_text('variable'), contains: schemas/* string */.YjP().optional() }),
    action('group', {}),
];
const stepActionNames = stepActionSchemas.map((schema) => schema.shape.name.value);
const stepAction = schemas/* discriminatedUnion */.gMt('name', stepActionSchemas, {
    error: (issue) => issue.code === 'invalid_union' ? `action.name must be one of ${stepActionNames.join(', ')}` : undefined,
});
const stepCondition = schemas/* discriminatedUnion */.gMt('type', [
    schemas/* object */.Ikc({ type: schemas/* literal */.euz('skip') }),
    schemas/* object */.Ikc({ type: schemas/* literal */.euz('alwaysRun') }),
    schemas/* object */.Ikc({ type: schemas/* literal */.euz('if'), variable: schemas/* string */.YjP(), equals: schemas/* unknown */.L5J() }),
]);
/**
 * Validates one action and names the step and field on failure, e.g.
 * `step "Log in" (steps[2]): action.selector: selector is required and must be a string`.
 */
function describeActionError(stepLabel, error) {
    const issue = error.issues[0];
    const field = issue && issue.path.length > 0 ? `action.${issue.path.join('.')}` : 'action.name';
    return `${stepLabel}: ${field}: ${issue?.message ?? 'invalid action'}`;
}

;// CONCATENATED MODULE: ./contract/src/tests.ts



/** Wire schemas of `/v1/tests` and `/v1/steps`. Step actions are checked with `stepAction`. */
const testType = schemas/* enum */.k5n(['ui', 'api']);
const testTypeFilter = schemas/* enum */.k5n(['all', 'ui', 'api']);
const oneOrMany = (item) => schemas/* union */.KCZ([item, schemas/* array */.YOg(item)])
    .optional()
    .transform((value) => (value === undefined ? undefined : Array.isArray(value) ? value : [value]));
const pageNumber = coerce/* number */.ai({ error: 'page must be an integer' }).int().min(0).default(0);
const pageLimit = coerce/* number */.ai({ error: 'limit must be an integer' }).int().min(1).default(50);
const listTestsQuery = schemas/* object */.Ikc({
    limit: pageLimit,
    page: pageNumber,
    name: schemas/* string */.YjP().optional(),
    status: oneOrMany(testStatus),
    tagIds: oneOrMany(uuid),
    type: testTypeFilter.default('all'),
    testId: uuid.optional(),
    branch: uuid.optional(),
    sortBy: schemas/* enum */.k5n(['name', 'status', 'updatedAt']).optional(),
    sortOrder: schemas/* enum */.k5n(['asc', 'desc']).optional(),
});
const stepInputList = schemas/* array */.YOg(schemas/* looseObject */._H3({}), { error: 'steps must be an array of steps' });
const testMetadataInput = schemas/* looseObject */._H3({
    type: testType.optional(),
    description: schemas/* string */.YjP().optional(),
});
const jsonObject = schemas/* record */.g1P(schemas/* string */.YjP(), schemas/* unknown */.L5J());
const createTestData = schemas/* object */.Ikc({
    name: schemas/* string */.YjP().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters'),
    status: testStatus.default('draft'),
    directory: schemas/* boolean */.zMY().default(false),
    parentTestId: uuid.nullable().optional(),
    config: runConfig.optional(),
    steps: stepInputList.optional(),
    tags: schemas/* array */.YOg(uuid).optional(),
    vars: jsonObject.nullable().optional(),
    parameters: jsonObject.nullable().optional(),
    metadata: testMetadataInput.optional(),
});
const updateTestData = schemas/* object */.Ikc({
    name: schemas/* string */.YjP().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters').optional(),
    status: testStatus.optional(),
    directory: schemas/* boolean */.zMY().optional(),
    config: runConfig.optional(),
    steps: stepInputList.optional(),
    tags: schemas/* array */.YOg(uuid).optional(),
    vars: jsonObject.nullable().optional(),
    parameters: jsonObject.nullable().optional(),
    metadata: testMetadataInput.optional(),
    editVersion: schemas/* union */.KCZ([schemas/* number */.aig().int(), schemas/* string */.YjP()]).optional(),
});
const testIds = schemas/* array */.YOg(uuid, { error: 'testIds must be an array of UUIDs' }).min(1, 'at least one test ID');
const bulkUpdateStatusBody = schemas/* object */.Ikc({ testIds, status: testStatus });
const bulkUpdateTagsBody = schemas/* object */.Ikc({
    testIds,
    tagIds: schemas/* array */.YOg(uuid, { error: 'tagIds must be an array of UUIDs' }),
});
const bulkDeleteBody = schemas/* object */.Ikc({ testIds });
const duplicateTestBody = schemas/* object */.Ikc({
    name: schemas/* string */.YjP().trim().min(1, 'must not be empty').max(128, 'must be at most 128 characters').optional(),
    status: testStatus.optional(),
})
    .optional();
const createRevisionBody = schemas/* object */.Ikc({
    message: schemas/* string */.YjP({ error: 'message is required' }).trim().min(1, 'message must not be empty').max(1000),
});
const exportTestsBody = schemas/* object */.Ikc({
    testIds: schemas/* array */.YOg(uuid).optional(),
    tagIds: schemas/* array */.YOg(uuid).optional(),
    directoryId: uuid.optional(),
    format: schemas/* enum */.k5n(['json', 'pw']).default('json'),
});
const listSharedStepsQuery = schemas/* object */.Ikc({
    limit: pageLimit,
    page: pageNumber,
    search: schemas/* string */.YjP().optional(),
    type: testTypeFilter.default('all'),
});
const updateStepData = schemas/* object */.Ikc({
    name: schemas/* string */.YjP().trim().min(1, 'must not be empty').max(256).optional(),
    action: schemas/* unknown */.L5J().optional(),
    metadata: jsonObject.nullable().optional(),
    condition: schemas/* unknown */.L5J().optional(),
});
/** The test item of `GET /v1/tests`. */
const testListItem = schemas/* object */.Ikc({
    id: uuid,
    parentTestId: schemas/* string */.YjP().nullable(),
    projectId: schemas/* string */.YjP(),
    organizationId: schemas/* string */.YjP(),
    name: schemas/* string */.YjP(),
    status: testStatus,
    directory: schemas/* boolean */.zMY(),
    config: jsonObject,
    vars: jsonObject.nullable(),
    parameters: jsonObject.nullable(),
    metadata: jsonObject,
    tags: schemas/* array */.YOg(schemas/* object */.Ikc({ id: schemas/* string */.YjP(), name: schemas/* string */.YjP() })),
    childrenCount: schemas/* number */.aig().int(),
    stepsCount: schemas/* number */.aig().int(),
    createdAt: schemas/* string */.YjP(),
    updatedAt: schemas/* string */.YjP(),
});
const listTestsResponse = schemas/* object */.Ikc({ children: schemas/* array */.YOg(testListItem), pagination: pagination });
/** Version of the JSON export format written into `manifest.json`. */
const testExportFormatVersion = 1;
const jsonValue = schemas/* unknown */.L5J();
/** A step of a step tree (the editor's shape; its action is checked on write with `stepAction`). */
/** Typed `unknown` for the service, whose step trees are built from JSON columns. */
const stepView = schemas/* looseObject */._H3({
    id: schemas/* string */.YjP(),
    name: schemas/* string */.YjP().nullable().optional(),
    children: schemas/* array */.YOg(schemas/* lazy */.RZV(() => stepView)).optional(),
})
    .meta({ id: 'Step' });
/** `POST /v1/tests`: the bare test row. */
const createdTest = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    parentTestId: schemas/* string */.YjP().nullable(),
    projectId: schemas/* string */.YjP(),
    organizationId: schemas/* string */.YjP(),
    createdAt: schemas/* string */.YjP(),
    updatedAt: schemas/* string */.YjP(),
});
/** `GET /v1/tests/:testId`. */
const testDetailResponse = schemas/* object */.Ikc({
    test: testListItem.extend({ revisionId: schemas/* string */.YjP(), branchId: schemas/* string */.YjP() }).loose(),
    children: schemas/* array */.YOg(testListItem.loose()),
    steps: schemas/* array */.YOg(stepView),
    parentDirectory: schemas/* object */.Ikc({ id: schemas/* string */.YjP(), name: schemas/* string */.YjP(), parentTestId: schemas/* string */.YjP().nullable() })
        .nullable(),
});
const testStepsResponse = dataOf(schemas/* object */.Ikc({ steps: schemas/* array */.YOg(stepView) }));
const testStepResponse = dataOf(schemas/* object */.Ikc({ step: stepView, children: schemas/* array */.YOg(stepView) }));
const fileAttachment = schemas/* object */.Ikc({
    filename: schemas/* string */.YjP(),
    content: schemas/* string */.YjP(),
    stepId: schemas/* string */.YjP().nullable(),
});
const testFilesResponse = dataOf(schemas/* array */.YOg(fileAttachment.loose()));
const revision = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    message: schemas/* string */.YjP(),
    revisionType: schemas/* string */.YjP(),
    createdAt: schemas/* string */.YjP(),
});
const revisionResponse = dataOf(revision);
const revisionsResponse = dataOf(schemas/* array */.YOg(revision));
const revisionDetailResponse = dataOf(schemas/* object */.Ikc({
    revision: schemas/* object */.Ikc({ id: schemas/* string */.YjP(), message: schemas/* string */.YjP(), createdAt: schemas/* string */.YjP() }),
    test: schemas/* object */.Ikc({ id: schemas/* string */.YjP(), name: schemas/* string */.YjP() }),
    steps: schemas/* array */.YOg(stepView),
}));
const duplicatedTestResponse = dataOf(schemas/* object */.Ikc({ id: schemas/* string */.YjP(), name: schemas/* string */.YjP() }));
const importResponse = dataOf(schemas/* object */.Ikc({
    imported: schemas/* object */.Ikc({
        tests: schemas/* number */.aig().int(),
        sharedSteps: schemas/* number */.aig().int(),
        tags: schemas/* number */.aig().int(),
        steps: schemas/* number */.aig().int(),
    }),
    errors: schemas/* array */.YOg(schemas/* object */.Ikc({ file: schemas/* string */.YjP(), error: schemas/* string */.YjP() })),
}));
/** A shared step (`GET /v1/steps/:stepId`, items of `GET /v1/steps/shared`). */
const sharedStep = schemas/* looseObject */._H3({
    id: schemas/* string */.YjP(),
    name: schemas/* string */.YjP().nullable().optional(),
    action: jsonValue,
});
const sharedStepListResponse = schemas/* object */.Ikc({ data: schemas/* array */.YOg(sharedStep), pagination: pagination });
const sharedStepResponse = dataOf(sharedStep);
const stepChildrenResponse = dataOf(schemas/* looseObject */._H3({ step: sharedStep, children: schemas/* array */.YOg(stepView) }));
const stepUsageResponse = dataOf(schemas/* array */.YOg(schemas/* object */.Ikc({ id: schemas/* string */.YjP(), name: schemas/* string */.YjP() }).loose()));
const updatedStepResponse = dataOf(schemas/* looseObject */._H3({ id: schemas/* string */.YjP(), name: schemas/* string */.YjP().nullable(), action: jsonValue }));
const replacedChildrenResponse = dataOf(schemas/* looseObject */._H3({
    step: schemas/* looseObject */._H3({ id: schemas/* string */.YjP(), name: schemas/* string */.YjP().nullable() }),
    children: schemas/* array */.YOg(schemas/* looseObject */._H3({ id: schemas/* string */.YjP(), name: schemas/* string */.YjP().nullable(), order: schemas/* number */.aig() })),
}));
const deletedStepResponse = schemas/* object */.Ikc({
    message: schemas/* string */.YjP(),
    data: schemas/* looseObject */._H3({ id: schemas/* string */.YjP(), shared: schemas/* boolean */.zMY(), group: schemas/* boolean */.zMY() }),
});

;// CONCATENATED MODULE: ./contract/src/index.ts
/**
 * The wire contract of the Stepdeck API: zod schemas used by the service's routes and by
 * the action's client, so both sides agree on every field by construction.
 */










/***/ })

};
