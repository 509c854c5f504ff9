export const id = 775;
export const ids = [775];
export const modules = {

/***/ 84775:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  fs: () => (/* reexport */ cancelRunResponse),
  X6: () => (/* reexport */ createdTest),
  qu: () => (/* reexport */ dataOf),
  QF: () => (/* reexport */ latestRunResponse),
  X$: () => (/* reexport */ pagination),
  tz: () => (/* reexport */ remoteRunResponse),
  c_: () => (/* reexport */ runArtifactsResponse),
  runConfig: () => (/* reexport */ runConfig),
  s$: () => (/* reexport */ terminalRunStatuses),
  zq: () => (/* reexport */ testDetailResponse),
  up: () => (/* reexport */ testListItem),
  uE: () => (/* reexport */ testRunDetailResponse)
});

// UNUSED EXPORTS: allScopes, auditEntry, auditLogQuery, auditLogResponse, bulkDeleteBody, bulkRemoteRunBody, bulkUpdateStatusBody, bulkUpdateTagsBody, cancelRun, concurrencyCapResponse, consoleApiKey, consoleApiKeysResponse, consoleBranch, consoleBranchResponse, consoleBranchesResponse, consoleMember, consoleMemberResponse, consoleMembersResponse, consoleOrganization, consoleOrganizationResponse, consoleProject, consoleProjectResponse, consoleProjectsResponse, consoleRole, consoleSchedule, consoleScheduleListResponse, consoleScheduleSummary, consoleSchedulesResponse, consoleTag, consoleTagResponse, consoleTagsResponse, consoleUser, consoleUserRecord, consoleUserResponse, consoleUsersResponse, createBranchBody, createRevisionBody, createTestData, createdApiKeyResponse, createdOrganizationResponse, createdUserResponse, createdWebhookResponse, cronPreviewQuery, cronPreviewResponse, definiteUrlScheme, deletedStepResponse, describeActionError, duplicateTestBody, duplicatedTestResponse, emailInbox, emailInboxLimitsResponse, emailInboxListResponse, emailInboxResponse, emailMessageListResponse, emailMessageResponse, errorBody, exportManifest, exportTestsBody, exportedSharedStep, exportedSharedSteps, exportedTest, failedStep, fileAttachment, importResponse, isoTimestamp, jsonObject, listSharedStepsQuery, listTestsQuery, listTestsResponse, noPayloadResponse, preset, presetCreateBody, presetListResponse, presetName, presetResponse, presetUpdateBody, projectSecret, projectSecretListResponse, projectSecretName, projectSecretResponse, projectSecretsResponse, rateLimitBody, refusedUrlReason, remoteRunMany, remoteRunManyResponse, remoteRunResult, remoteRunSingle, remoteRunSingleResponse, replacedChildrenResponse, resolveRunConfig, revision, revisionDetailResponse, revisionResponse, revisionsResponse, roleChangeBody, rotatedSecretResponse, runArtifact, runMetadata, runReport, runShard, runStatistics, runStatisticsResponse, runStats, runStatus, runStepResult, runSummary, runTestResult, runTestsResponse, schedule, scheduleListResponse, scheduleResponse, scheduleTriggerResponse, scope, sharedStep, sharedStepChild, sharedStepListResponse, sharedStepResponse, signInBody, signInResponse, stepAction, stepActionNames, stepActionSchemas, stepChildrenResponse, stepCondition, stepInputList, stepOutcome, stepTree, stepTreeItem, stepUsageResponse, stepView, subscriptionResponse, testExportFormatVersion, testFilesResponse, testMetadataInput, testRun, testRunDetail, testRunLatestQuery, testRunListQuery, testRunListResponse, testStatus, testStepResponse, testStepsResponse, testType, testTypeFilter, updateStepData, updateTestData, updatedStepResponse, uuid, webhook, webhookBody, webhookDelivery, webhookDeliveryListResponse, webhookDeliveryResponse, webhookDeliveryView, webhookDeliveryViewsResponse, webhookEvent, webhookListResponse, webhookResponse, webhookSamplePayloadResponse

// EXTERNAL MODULE: ./node_modules/zod/v4/classic/schemas.js + 11 modules
var schemas = __webpack_require__(92857);
// EXTERNAL MODULE: ./node_modules/zod/v4/classic/iso.js
var iso = __webpack_require__(64377);
// EXTERNAL MODULE: ./node_modules/zod/v4/classic/coerce.js
var coerce = __webpack_require__(49567);
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
/** A JSON object of the user's own (configuration, variables, custom data): an open map. */
const jsonObject = schemas/* record */.g1P(schemas/* string */.YjP(), schemas/* unknown */.L5J());
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
    /** null: the install's default cap applies. */
    concurrencyCap: schemas/* number */.aig().int().nullable(),
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
/** `POST /console/v1/session`: the signed-in user (the session itself travels in the cookie). */
const signInResponse = (/* unused pure expression or super */ null && (consoleUserResponse));
const consoleProjectResponse = dataOf(consoleProject);
const consoleBranchResponse = dataOf(consoleBranch);
/** Item of `GET /console/v1/api-keys`: never the key itself, only its prefix. */
const consoleApiKey = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    name: schemas/* string */.YjP(),
    prefix: schemas/* string */.YjP(),
    scopes: schemas/* array */.YOg(schemas/* string */.YjP()),
    revoked: schemas/* boolean */.zMY(),
    revokedAt: isoTimestamp.nullable(),
    createdAt: isoTimestamp,
});
const consoleApiKeysResponse = dataOf(schemas/* array */.YOg(consoleApiKey));
/** `POST /console/v1/api-keys`: the only answer that shows the key (`key`). */
const createdApiKeyResponse = dataOf(schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    name: schemas/* string */.YjP(),
    prefix: schemas/* string */.YjP(),
    scopes: schemas/* array */.YOg(schemas/* string */.YjP()),
    key: schemas/* string */.YjP(),
}));
const consoleTag = schemas/* object */.Ikc({ id: schemas/* string */.YjP(), name: schemas/* string */.YjP() });
const consoleTagResponse = dataOf(consoleTag);
const consoleTagsResponse = dataOf(schemas/* array */.YOg(consoleTag));
/** Item of `GET /console/v1/users`. */
const consoleUserRecord = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    email: schemas/* string */.YjP(),
    role: consoleRole,
    createdAt: isoTimestamp,
});
const consoleUsersResponse = dataOf(schemas/* array */.YOg(consoleUserRecord));
const createdUserResponse = dataOf(schemas/* object */.Ikc({ id: schemas/* string */.YjP(), email: schemas/* string */.YjP(), role: consoleRole }));
const subscriptionResponse = dataOf(schemas/* object */.Ikc({ active: schemas/* boolean */.zMY() }));
const concurrencyCapResponse = dataOf(schemas/* object */.Ikc({ concurrencyCap: schemas/* number */.aig().int() }));
/** `POST /console/v1/organizations`: the new organization with its default project and branch. */
const createdOrganizationResponse = dataOf(schemas/* object */.Ikc({ id: schemas/* string */.YjP(), projectId: schemas/* string */.YjP(), branchId: schemas/* string */.YjP() }));

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

;// CONCATENATED MODULE: ./contract/src/admin.ts




/**
 * Shapes of the console's administration resources (config presets, audit log, users and
 * roles): the service's routes validate and serialise with these; the console parses them.
 */
const presetName = schemas/* string */.YjP()
    .trim()
    .min(1, 'must not be empty')
    .max(128, 'must be at most 128 characters');
/** Item of `GET /console/v1/projects/:projectId/presets`. */
const preset = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    projectId: schemas/* string */.YjP(),
    name: schemas/* string */.YjP(),
    /** The run configuration as stored (validated with `runConfig` on the way in). */
    config: jsonObject,
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
});
const presetResponse = dataOf(preset);
const presetListResponse = dataOf(schemas/* array */.YOg(preset));
const presetCreateBody = schemas/* object */.Ikc({ name: presetName, config: runConfig });
const presetUpdateBody = schemas/* object */.Ikc({ name: presetName.optional(), config: runConfig.optional() });
/** One entry of `GET /console/v1/audit-log`: who changed what, when, and how it ended. */
const auditEntry = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    createdAt: isoTimestamp,
    actor: schemas/* object */.Ikc({
        type: schemas/* enum */.k5n(['user', 'apiKey']),
        id: schemas/* string */.YjP(),
        /** A user's email, or an API key's name and its 8-character prefix. */
        label: schemas/* string */.YjP(),
    }),
    /** `METHOD route`. */
    action: schemas/* string */.YjP(),
    resourceType: schemas/* string */.YjP(),
    resourceId: schemas/* string */.YjP().nullable(),
    organizationId: schemas/* string */.YjP(),
    projectId: schemas/* string */.YjP().nullable(),
    /** The response status; null when the outcome is unknown (the process stopped mid-request). */
    status: schemas/* number */.aig().int().nullable(),
    ip: schemas/* string */.YjP(),
    userAgent: schemas/* string */.YjP(),
});
const auditLogResponse = schemas/* object */.Ikc({ data: schemas/* array */.YOg(auditEntry), pagination: pagination });
/** Filters of `GET /console/v1/audit-log` (and of its export). */
const auditLogQuery = schemas/* object */.Ikc({
    actor: schemas/* string */.YjP().trim().max(256).optional(),
    action: schemas/* string */.YjP().trim().max(256).optional(),
    resource: schemas/* string */.YjP().trim().max(256).optional(),
    from: iso/* datetime */.w$({ offset: true, error: 'from must be an ISO 8601 date-time' }).optional(),
    to: iso/* datetime */.w$({ offset: true, error: 'to must be an ISO 8601 date-time' }).optional(),
    page: coerce/* number */.ai().int().min(1, 'page must be at least 1').default(1),
    limit: coerce/* number */.ai().int().min(1).max(100, 'limit must be at most 100').default(50),
});
/** Item of `GET /console/v1/users`. */
const consoleMember = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    email: schemas/* string */.YjP(),
    role: consoleRole,
    createdAt: isoTimestamp,
});
const consoleMemberResponse = dataOf(consoleMember);
const consoleMembersResponse = dataOf(schemas/* array */.YOg(consoleMember));
const roleChangeBody = schemas/* object */.Ikc({ role: consoleRole });
/** Item of `GET /console/v1/projects/:projectId/secrets`: the name only, never the value. */
const projectSecretName = schemas/* looseObject */._H3({ name: schemas/* string */.YjP() });
const projectSecretsResponse = dataOf(schemas/* array */.YOg(projectSecretName));
/** Item of `GET /console/v1/webhooks/:id/deliveries`, with the exact body sent. */
const webhookDeliveryView = schemas/* looseObject */._H3({
    id: schemas/* string */.YjP(),
    event: schemas/* string */.YjP(),
    runId: schemas/* string */.YjP(),
    status: schemas/* string */.YjP(),
    attempts: schemas/* number */.aig().int(),
    lastResponseCode: schemas/* number */.aig().int().nullable(),
    lastError: schemas/* string */.YjP().nullable(),
    body: schemas/* string */.YjP(),
    createdAt: isoTimestamp,
});
const webhookDeliveryViewsResponse = dataOf(schemas/* array */.YOg(webhookDeliveryView));
/** `GET /console/v1/schedules/preview`: when a cron expression fires next, in its time zone. */
const cronPreviewQuery = schemas/* object */.Ikc({
    cron: schemas/* string */.YjP().trim().min(1, 'cron must not be empty').max(256),
    timezone: schemas/* string */.YjP().trim().min(1).max(64).default('UTC'),
});
const cronPreviewResponse = dataOf(schemas/* object */.Ikc({ nextRuns: schemas/* array */.YOg(isoTimestamp) }));
/** Item of `GET /console/v1/schedules` as the schedules page shows it. */
const consoleSchedule = schemas/* looseObject */._H3({
    id: schemas/* string */.YjP(),
    name: schemas/* string */.YjP(),
    cron: schemas/* string */.YjP(),
    timezone: schemas/* string */.YjP(),
    enabled: schemas/* boolean */.zMY(),
    testIds: schemas/* array */.YOg(schemas/* string */.YjP()).nullable(),
    tagId: schemas/* string */.YjP().nullable(),
    presetId: schemas/* string */.YjP().nullable().optional(),
    nextRunAt: schemas/* string */.YjP().nullable(),
    lastRunAt: schemas/* string */.YjP().nullable(),
    lastRunId: schemas/* string */.YjP().nullable(),
});
const consoleScheduleListResponse = dataOf(schemas/* array */.YOg(consoleSchedule));

;// CONCATENATED MODULE: ./contract/src/authoring.ts

/**
 * Shapes the console's authoring pages (tests tree, editor) use: the body of creating a
 * branch, and a test's step tree as the API shows it.
 */
/** Body of `POST /console/v1/projects/:projectId/branches`. */
const createBranchBody = schemas/* object */.Ikc({ name: schemas/* string */.YjP().min(1), sourceBranchId: schemas/* string */.YjP().optional() });
const stepTreeItem = schemas/* lazy */.RZV(() => schemas/* looseObject */._H3({
    id: schemas/* string */.YjP(),
    revisionStepId: schemas/* string */.YjP().optional(),
    stepId: schemas/* string */.YjP().optional(),
    name: schemas/* string */.YjP().nullable().optional(),
    action: schemas/* looseObject */._H3({ name: schemas/* string */.YjP() }),
    condition: schemas/* unknown */.L5J().optional(),
    metadata: schemas/* unknown */.L5J().optional(),
    order: schemas/* number */.aig().optional(),
    group: schemas/* boolean */.zMY().optional(),
    shared: schemas/* boolean */.zMY().optional(),
    children: schemas/* array */.YOg(stepTreeItem).optional(),
}));
const stepTree = schemas/* array */.YOg(stepTreeItem);

;// CONCATENATED MODULE: ./contract/src/resources.ts


/**
 * Response shapes of the organization-level resources (inboxes, schedules, webhooks) and of
 * the console. Objects are closed (`z.object`): the service serializes through these schemas,
 * so a field the service returns is listed here or never reaches the client. Only user-supplied
 * JSON (`config`, `customData`, `custom`) is an open map.
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
const emailMessageListResponse = dataOf(schemas/* array */.YOg(schemas/* object */.Ikc({ ...emailMessageFields, urls: schemas/* array */.YOg(schemas/* string */.YjP()) })));
/** A single message: no `urls`, with its inbox, organization and SMTP message ids. */
const emailMessageResponse = dataOf(schemas/* object */.Ikc({
    ...emailMessageFields,
    inboxId: schemas/* string */.YjP(),
    organizationId: schemas/* string */.YjP(),
    sesMessageId: schemas/* string */.YjP(),
    createdAt: schemas/* string */.YjP(),
}));
/** A schedule (the spec leaves its fields open; these are the service's). */
const schedule = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    organizationId: schemas/* string */.YjP(),
    projectId: schemas/* string */.YjP(),
    branchId: schemas/* string */.YjP(),
    name: schemas/* string */.YjP(),
    /** Exactly one of `testIds` and `tagId` is set. */
    testIds: schemas/* array */.YOg(schemas/* string */.YjP()).nullable(),
    tagId: schemas/* string */.YjP().nullable(),
    cron: schemas/* string */.YjP(),
    timezone: schemas/* string */.YjP(),
    /** Run configuration overrides (the `config` object of remote runs). */
    config: jsonObject.nullable(),
    /** The config preset the schedule names (console part 3); null for none. */
    presetId: schemas/* string */.YjP().nullable().optional(),
    enabled: schemas/* boolean */.zMY(),
    scheduleType: schemas/* string */.YjP(),
    nextRunAt: schemas/* string */.YjP().nullable(),
    lastRunAt: schemas/* string */.YjP().nullable(),
    lastRunId: schemas/* string */.YjP().nullable(),
    lastSkippedAt: schemas/* string */.YjP().nullable(),
    skippedCount: schemas/* number */.aig().int(),
    lastError: schemas/* string */.YjP().nullable(),
    lastErrorAt: schemas/* string */.YjP().nullable(),
    createdAt: schemas/* string */.YjP(),
    updatedAt: schemas/* string */.YjP(),
});
const scheduleResponse = dataOf(schedule);
const scheduleListResponse = dataOf(schemas/* array */.YOg(schedule));
const scheduleTriggerResponse = dataOf(schemas/* object */.Ikc({
    runId: schemas/* string */.YjP(),
    status: schemas/* string */.YjP(),
    totalTests: schemas/* number */.aig().int().optional(),
    message: schemas/* string */.YjP().optional(),
}));
const webhookEvent = schemas/* enum */.k5n(['run.completed', 'run.failed']);
/** The body of a webhook delivery (spec: Events, Body), also the sample payload's. */
const webhookBody = schemas/* object */.Ikc({
    event: webhookEvent,
    deliveryId: schemas/* string */.YjP(),
    timestamp: schemas/* string */.YjP(),
    run: schemas/* object */.Ikc({
        id: schemas/* string */.YjP(),
        name: schemas/* string */.YjP(),
        status: schemas/* enum */.k5n(['completed', 'failed']),
        url: schemas/* string */.YjP(),
        startedAt: schemas/* string */.YjP().nullable(),
        finishedAt: schemas/* string */.YjP(),
        durationMs: schemas/* number */.aig().int(),
        trigger: schemas/* union */.KCZ([
            schemas/* object */.Ikc({ type: schemas/* literal */.euz('schedule'), schedule: schemas/* string */.YjP() }),
            schemas/* object */.Ikc({ type: schemas/* literal */.euz('apiKey'), name: schemas/* string */.YjP() }),
            schemas/* object */.Ikc({ type: schemas/* literal */.euz('manual'), email: schemas/* string */.YjP() }),
        ]),
        project: schemas/* object */.Ikc({ id: schemas/* string */.YjP(), name: schemas/* string */.YjP() }),
        branch: schemas/* object */.Ikc({ id: schemas/* string */.YjP(), name: schemas/* string */.YjP() }),
        target: schemas/* object */.Ikc({ type: schemas/* enum */.k5n(['test', 'directory', 'tag']), id: schemas/* string */.YjP(), name: schemas/* string */.YjP() }),
        stats: schemas/* object */.Ikc({
            passed: schemas/* number */.aig().int(),
            failed: schemas/* number */.aig().int(),
            skipped: schemas/* number */.aig().int(),
            total: schemas/* number */.aig().int(),
        }),
        tests: schemas/* array */.YOg(schemas/* object */.Ikc({
            name: schemas/* string */.YjP(),
            status: schemas/* string */.YjP(),
            durationMs: schemas/* number */.aig().int(),
            errorMessage: schemas/* string */.YjP().nullable(),
            errorLocation: schemas/* string */.YjP().nullable(),
        })),
    }),
    /** The webhook's custom data, sent unchanged; absent when it has none. */
    custom: jsonObject.optional(),
});
const webhookSamplePayloadResponse = dataOf(webhookBody);
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
/** A delivery record: status, attempts, last response and the exact body sent. */
const webhookDelivery = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    webhookId: schemas/* string */.YjP(),
    /** `run.completed` or `run.failed`. */
    event: schemas/* string */.YjP(),
    runId: schemas/* string */.YjP(),
    /** `pending` (in progress), `succeeded` or `failed` (after three failed attempts). */
    status: schemas/* string */.YjP(),
    attempts: schemas/* number */.aig().int(),
    lastResponseCode: schemas/* number */.aig().int().nullable(),
    lastError: schemas/* string */.YjP().nullable(),
    /** The exact bytes sent, as text (a JSON document of the `webhookBody` shape). */
    body: schemas/* string */.YjP(),
    nextAttemptAt: schemas/* string */.YjP().nullable(),
    lastAttemptAt: schemas/* string */.YjP().nullable(),
    completedAt: schemas/* string */.YjP().nullable(),
    createdAt: schemas/* string */.YjP(),
    updatedAt: schemas/* string */.YjP(),
});
const webhookDeliveryListResponse = dataOf(schemas/* array */.YOg(webhookDelivery));
const webhookDeliveryResponse = dataOf(webhookDelivery);
/** A project secret: its name and dates, never its value. */
const projectSecret = schemas/* object */.Ikc({ name: schemas/* string */.YjP(), createdAt: schemas/* string */.YjP(), updatedAt: schemas/* string */.YjP() });
const projectSecretResponse = dataOf(projectSecret);
const projectSecretListResponse = dataOf(schemas/* array */.YOg(projectSecret));

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
/**
 * One runner slot that took part in an orchestrated run (issue 21): which worker, the tests it
 * ran (batches it took, summed) and its busy time. Additive: the console shows it.
 */
const runShard = schemas/* object */.Ikc({
    worker: schemas/* string */.YjP(),
    tests: schemas/* number */.aig().int(),
    batches: schemas/* number */.aig().int(),
    durationMs: schemas/* number */.aig().int(),
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
    shards: schemas/* array */.YOg(runShard).optional(),
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
/**
 * The JSON export format, as import reads it back: `manifest.json`, `tests/<name>.json` and
 * `shared-steps.json`. Lenient where older or hand-made archives leave fields out (the import
 * fills the defaults); each test's fields are then checked as a create would check them.
 */
const exportManifest = schemas/* object */.Ikc({ formatVersion: schemas/* unknown */.L5J(), tests: schemas/* unknown */.L5J() });
const exportedTest = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    parentId: schemas/* string */.YjP().nullable().default(null),
    name: schemas/* string */.YjP(),
    status: testStatus.optional(),
    directory: schemas/* boolean */.zMY().optional(),
    config: jsonObject.optional(),
    vars: jsonObject.nullable().optional(),
    parameters: jsonObject.nullable().optional(),
    metadata: schemas/* looseObject */._H3({ type: testType.optional(), description: schemas/* string */.YjP().optional() }).optional(),
    tags: schemas/* array */.YOg(schemas/* string */.YjP()).optional(),
    steps: schemas/* array */.YOg(schemas/* unknown */.L5J()).optional(),
    files: schemas/* array */.YOg(schemas/* object */.Ikc({ filename: schemas/* string */.YjP(), content: schemas/* string */.YjP() })).optional(),
});
const exportedSharedStep = schemas/* looseObject */._H3({
    id: schemas/* string */.YjP(),
    name: schemas/* string */.YjP(),
    action: jsonObject,
    condition: schemas/* unknown */.L5J(),
    metadata: schemas/* unknown */.L5J(),
    group: schemas/* boolean */.zMY().optional(),
    children: schemas/* array */.YOg(schemas/* unknown */.L5J()).optional(),
});
const exportedSharedSteps = schemas/* array */.YOg(exportedSharedStep);
/**
 * A step of a step tree as the API shows it (`id` is the revision-step id). `action` holds
 * `name` plus the action's own fields (checked on write with `stepAction`); `condition` is
 * `{ type: 'skip' | 'alwaysRun' }` or `{ type: 'if', variable, equals }`.
 * Typed `unknown` for the service, whose step trees are built from JSON columns.
 */
const stepView = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    revisionStepId: schemas/* string */.YjP(),
    stepId: schemas/* string */.YjP(),
    name: schemas/* string */.YjP(),
    action: jsonObject,
    condition: jsonObject.nullable(),
    metadata: jsonObject.nullable(),
    order: schemas/* number */.aig().int(),
    group: schemas/* boolean */.zMY(),
    shared: schemas/* boolean */.zMY(),
    children: schemas/* array */.YOg(schemas/* lazy */.RZV(() => stepView)),
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
    test: testListItem.extend({ editVersion: schemas/* number */.aig().int(), revisionId: schemas/* string */.YjP(), branchId: schemas/* string */.YjP() }),
    children: schemas/* array */.YOg(testListItem.extend({ editVersion: schemas/* number */.aig().int() })),
    steps: schemas/* array */.YOg(stepView),
    parentDirectory: schemas/* object */.Ikc({ id: schemas/* string */.YjP(), name: schemas/* string */.YjP(), parentTestId: schemas/* string */.YjP().nullable() })
        .nullable(),
});
const testStepsResponse = dataOf(schemas/* object */.Ikc({ steps: schemas/* array */.YOg(stepView) }));
const testStepResponse = dataOf(schemas/* object */.Ikc({ step: stepView, children: schemas/* array */.YOg(stepView) }));
const fileAttachment = schemas/* object */.Ikc({
    filename: schemas/* string */.YjP(),
    content: schemas/* string */.YjP(),
    stepId: schemas/* string */.YjP(),
});
const testFilesResponse = dataOf(schemas/* array */.YOg(fileAttachment));
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
const sharedStep = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    name: schemas/* string */.YjP(),
    action: jsonObject,
    shared: schemas/* boolean */.zMY(),
    group: schemas/* boolean */.zMY(),
});
const sharedStepListResponse = schemas/* object */.Ikc({ data: schemas/* array */.YOg(sharedStep), pagination: pagination });
const sharedStepResponse = dataOf(sharedStep);
/** A child of a shared group: `id` is the link id, `stepId` the child's canonical step. */
const sharedStepChild = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    stepId: schemas/* string */.YjP(),
    name: schemas/* string */.YjP(),
    action: jsonObject,
    order: schemas/* number */.aig().int(),
});
const stepChildrenResponse = dataOf(schemas/* object */.Ikc({ step: sharedStep, children: schemas/* array */.YOg(sharedStepChild) }));
const stepUsageResponse = dataOf(schemas/* array */.YOg(schemas/* object */.Ikc({ id: schemas/* string */.YjP(), name: schemas/* string */.YjP() })));
const updatedStepResponse = dataOf(schemas/* object */.Ikc({ id: schemas/* string */.YjP(), name: schemas/* string */.YjP(), action: jsonObject }));
const replacedChildrenResponse = dataOf(schemas/* object */.Ikc({
    step: schemas/* object */.Ikc({ id: schemas/* string */.YjP(), name: schemas/* string */.YjP() }),
    children: schemas/* array */.YOg(schemas/* object */.Ikc({ id: schemas/* string */.YjP(), name: schemas/* string */.YjP(), order: schemas/* number */.aig().int() })),
}));
const deletedStepResponse = schemas/* object */.Ikc({
    message: schemas/* string */.YjP(),
    data: schemas/* object */.Ikc({ id: schemas/* string */.YjP(), shared: schemas/* boolean */.zMY(), group: schemas/* boolean */.zMY() }),
});

;// CONCATENATED MODULE: ./contract/src/index.ts
/**
 * The wire contract of the Stepdeck API: zod schemas used by the service's routes and by
 * the action's client, so both sides agree on every field by construction.
 */












/***/ })

};
