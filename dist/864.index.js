export const id = 864;
export const ids = [864];
export const modules = {

/***/ 30386:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  aA: () => (/* binding */ runConfig)
});

// UNUSED EXPORTS: healMode, resolveRunConfig

// EXTERNAL MODULE: ./node_modules/zod/v4/classic/schemas.js + 11 modules
var schemas = __webpack_require__(92857);
;// CONCATENATED MODULE: ./contract/src/browser-environment.ts

/**
 * The browser context a test runs in, beyond the viewport: a device preset from Playwright's
 * registry, locale, time zone, geolocation and permissions, colour scheme, offline mode, extra
 * HTTP headers and HTTP credentials. Part of the run configuration (additive fields at its top
 * level, layered like `retries`: a later layer replaces a field whole).
 */
/** The permissions Playwright's `browserContext.grantPermissions` knows for Chromium. */
const browserPermissions = [
    'accelerometer',
    'ambient-light-sensor',
    'background-sync',
    'camera',
    'clipboard-read',
    'clipboard-write',
    'geolocation',
    'gyroscope',
    'local-fonts',
    'local-network-access',
    'magnetometer',
    'microphone',
    'midi',
    'midi-sysex',
    'notifications',
    'payment-handler',
    'storage-access',
];
/**
 * Chromium devices of Playwright's registry offered first (the console's Device list); any
 * other Chromium device of the registry is accepted too, the service checks the name.
 */
const suggestedDevices = (/* unused pure expression or super */ null && ([
    'Desktop Chrome',
    'Desktop Chrome HiDPI',
    'Desktop Edge',
    'Pixel 7',
    'Pixel 5',
    'Galaxy S9+',
    'Galaxy S8',
    'Galaxy Tab S4',
    'Nexus 7',
    'Moto G4',
]));
/** `{{secrets.NAME}}` (or `{{env.NAME}}`) templates: the only ones a browser context can resolve. */
const CONTEXT_TEMPLATE = /\{\{\s*(secrets|env)\.[^}\s]+\s*\}\}/g;
const ANY_TEMPLATE = /\{\{[^}]*\}\}/;
const SECRET_ONLY = /^\{\{\s*secrets\.[^}\s]+\s*\}\}$/;
/** Whether an IANA time zone name is one this JavaScript engine knows. */
function knownTimeZone(name) {
    try {
        new Intl.DateTimeFormat('en-US', { timeZone: name });
        return true;
    }
    catch {
        return false;
    }
}
/** Whether a string is a well-formed BCP 47 language tag (`de-DE`, `en`, `zh-Hant-TW`). */
function wellFormedLocale(name) {
    try {
        new Intl.Locale(name);
        return true;
    }
    catch {
        return false;
    }
}
const headerValue = schemas/* string */.YjP({ error: 'a header value must be a string' }).superRefine((value, ctx) => {
    if (ANY_TEMPLATE.test(value.replace(CONTEXT_TEMPLATE, '')))
        ctx.addIssue({
            code: 'custom',
            message: 'a header value can use only {{secrets.NAME}} and {{env.NAME}} (vars and parameters belong to steps)',
        });
});
const browserEnvironmentFields = {
    /** A device of Playwright's `devices` registry (Chromium ones), e.g. `Pixel 7`. */
    device: schemas/* string */.YjP({ error: 'device must be the name of a device, e.g. "Pixel 7"' })
        .min(1, 'device must not be empty')
        .optional(),
    locale: schemas/* string */.YjP({ error: 'locale must be a language tag, e.g. "de-DE"' })
        .refine(wellFormedLocale, {
        error: (issue) => `locale "${String(issue.input)}" is not a language tag; e.g. "de-DE", "en-GB", "fr"`,
    })
        .optional(),
    timezoneId: schemas/* string */.YjP({ error: 'timezoneId must be an IANA time zone, e.g. "Europe/Berlin"' })
        .refine(knownTimeZone, {
        error: (issue) => `timezoneId "${String(issue.input)}" is not a known time zone; e.g. "Europe/Berlin", "America/New_York", "UTC"`,
    })
        .optional(),
    geolocation: schemas/* object */.Ikc({
        latitude: schemas/* number */.aig({ error: 'geolocation.latitude must be a number' })
            .min(-90, 'geolocation.latitude must be between -90 and 90')
            .max(90, 'geolocation.latitude must be between -90 and 90'),
        longitude: schemas/* number */.aig({ error: 'geolocation.longitude must be a number' })
            .min(-180, 'geolocation.longitude must be between -180 and 180')
            .max(180, 'geolocation.longitude must be between -180 and 180'),
        accuracy: schemas/* number */.aig({ error: 'geolocation.accuracy must be a number of metres' })
            .min(0, 'geolocation.accuracy must not be negative')
            .optional(),
    }, { error: 'geolocation must be { latitude, longitude, accuracy? }' })
        .optional(),
    permissions: schemas/* array */.YOg(schemas/* enum */.k5n(browserPermissions, {
        error: (issue) => `permission "${String(issue.input)}" is not one Playwright grants; known: ${browserPermissions.join(', ')}`,
    }), { error: 'permissions must be a list of permission names, e.g. ["geolocation"]' })
        .optional(),
    colorScheme: schemas/* enum */.k5n(['light', 'dark', 'no-preference'], { error: 'colorScheme must be light, dark or no-preference' })
        .optional(),
    offline: schemas/* boolean */.zMY({ error: 'offline must be true or false' }).optional(),
    extraHTTPHeaders: schemas/* record */.g1P(schemas/* string */.YjP().min(1, 'a header name must not be empty'), headerValue, {
        error: 'extraHTTPHeaders must map header names to string values',
    })
        .optional(),
    httpCredentials: schemas/* object */.Ikc({
        username: schemas/* string */.YjP({ error: 'httpCredentials.username must be a string' }),
        password: schemas/* string */.YjP({ error: 'httpCredentials.password must be a string' })
            .refine((value) => SECRET_ONLY.test(value.trim()), {
            message: 'httpCredentials.password must be a secret reference such as "{{secrets.BASIC_AUTH_PASSWORD}}", never the password itself',
        }),
    }, { error: 'httpCredentials must be { username, password }' })
        .optional(),
};
const browserEnvironmentKeys = Object.keys(browserEnvironmentFields);
/** The fields of a merged config that shape the browser context (undefined ones left out). */
function browser_environment_browserEnvironmentOf(config) {
    const out = {};
    for (const key of browserEnvironmentKeys)
        if (config[key] !== undefined)
            out[key] = config[key];
    return out;
}

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
    /**
     * A step whose locator finds nothing (or several): `suggest` (default) records the page's
     * closest elements, `retry` also runs the step once more with the best one (the result
     * says healed), `off` neither. Additive.
     */
    heal: schemas/* enum */.k5n(['off', 'suggest', 'retry']).optional(),
    viewport: schemas/* object */.Ikc({
        width: schemas/* number */.aig().int().min(1).max(10_000).optional(),
        height: schemas/* number */.aig().int().min(1).max(10_000).optional(),
    })
        .optional(),
    /** The browser context: device preset, locale, time zone... (browser-environment.ts; additive). */
    ...browserEnvironmentFields,
})
    .loose();
/** A test's `heal` after layering (last layer wins), `suggest` when none sets it. */
function healMode(...layers) {
    let mode = 'suggest';
    for (const layer of layers)
        if (layer?.heal)
            mode = layer.heal;
    return mode;
}
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
        viewportSet: merged.viewport?.width !== undefined || merged.viewport?.height !== undefined,
        environment: browserEnvironmentOf(merged),
    };
}


/***/ }),

/***/ 47864:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  $V: () => (/* binding */ clientFor),
  execute: () => (/* binding */ execute),
  wk: () => (/* binding */ state)
});

// UNUSED EXPORTS: defaultArtifactName

// EXTERNAL MODULE: external "node:os"
var external_node_os_ = __webpack_require__(48161);
var external_node_os_default = /*#__PURE__*/__webpack_require__.n(external_node_os_);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(76760);
var external_node_path_default = /*#__PURE__*/__webpack_require__.n(external_node_path_);
// EXTERNAL MODULE: ./node_modules/@actions/core/lib/core.js + 11 modules
var core = __webpack_require__(91659);
// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(73024);
var external_node_fs_default = /*#__PURE__*/__webpack_require__.n(external_node_fs_);
// EXTERNAL MODULE: external "node:stream/promises"
var promises_ = __webpack_require__(46466);
// EXTERNAL MODULE: ./node_modules/undici/index.js
var undici = __webpack_require__(46752);
;// CONCATENATED MODULE: ./src/results.ts
/** The status of a test the deadline stopped: counted and listed as failed. */
const unfinishedStatus = 'not finished';
/** `the run exceeded the 30-minute deadline and was cancelled`. */
const deadlineNote = (timeoutMs, runs) => {
    const minutes = Math.round((timeoutMs / 60_000) * 100) / 100;
    return `the ${runs === 1 ? 'run' : 'runs'} exceeded the ${minutes}-minute deadline and ${runs === 1 ? 'was' : 'were'} cancelled`;
};
const runUrl = (baseUrl, projectId, runId) => `${baseUrl}/console/projects/${encodeURIComponent(projectId)}/runs/${encodeURIComponent(runId)}`;
/** Anything but passed, skipped or flaky (Playwright's word for passed on a retry) failed. */
const isFailedTest = (test) => test.status !== 'passed' && test.status !== 'skipped' && test.status !== 'flaky';
const isFlakyTest = (test) => !isFailedTest(test) && test.status !== 'skipped' && (test.flaky || test.status === 'flaky');
/** Merges runs (several when a big selection was split) into one result. */
function mergeRuns(runs, context) {
    const note = context.timedOut
        ? deadlineNote(context.timeoutMs ?? 0, Math.max(1, context.unfinished?.size ?? 1))
        : undefined;
    const tests = [];
    const stats = { passed: 0, failed: 0, skipped: 0, total: 0, flaky: 0 };
    let durationMs = 0;
    const summaries = [];
    const visualChanges = [];
    for (const run of runs) {
        const info = run.report?.runTypeInfo;
        for (const change of run.report?.visualChanges ?? [])
            visualChanges.push({ ...change, runId: run.id });
        for (const result of info?.testResults ?? [])
            tests.push({
                runId: run.id,
                testId: result.testId,
                name: result.name,
                status: result.status,
                durationMs: result.duration,
                errorMessage: result.errorMessage,
                errorLocation: result.errorLocation,
                failedStep: result.failedStep ?? null,
                expected: result.expected ?? null,
                received: result.received ?? null,
                errorDetail: result.errorDetail ?? null,
                flaky: result.flaky === true || result.status === 'flaky',
                ...(result.locatorSuggestions
                    ? {
                        locatorHint: {
                            step: result.locatorSuggestions.step,
                            from: result.locatorSuggestions.fromLocator,
                            problem: result.locatorSuggestions.problem,
                            closest: result.locatorSuggestions.suggestions[0]?.locator ?? null,
                        },
                    }
                    : {}),
                ...(result.healed?.length
                    ? { healed: result.healed.map((step) => ({ step: step.step, locator: step.locator })) }
                    : {}),
            });
        const reported = new Set((info?.testResults ?? []).map((result) => result.testId));
        const stopped = (context.unfinished?.get(run.id) ?? []).filter((test) => !reported.has(test.testId));
        for (const test of stopped)
            tests.push({
                runId: run.id,
                testId: test.testId,
                name: test.testName,
                status: unfinishedStatus,
                durationMs: 0,
                errorMessage: `not finished: ${note}`,
                errorLocation: null,
                failedStep: null,
                expected: null,
                received: null,
                errorDetail: null,
                flaky: false,
            });
        const runStats = info?.stats ?? run.stats;
        stats.passed += runStats?.passed ?? 0;
        stats.failed += (runStats?.failed ?? 0) + stopped.length;
        stats.skipped += runStats?.skipped ?? 0;
        // Whether or not the service counted the unreported tests in its total, they are in it now.
        stats.total += Math.max(runStats?.total ?? 0, reported.size + stopped.length);
        // Split runs execute side by side: the merged duration is the longest.
        durationMs = Math.max(durationMs, run.report?.duration ?? run.duration ?? wallClock(run));
        summaries.push({
            runId: run.id,
            status: run.status,
            url: runUrl(context.baseUrl, context.projectId, run.id),
            runnerError: info?.runnerError ?? null,
        });
    }
    stats.flaky = tests.filter(isFlakyTest).length;
    // Failed first, then flaky, then the rest (stable: report order within each group).
    const rank = (test) => (isFailedTest(test) ? 0 : isFlakyTest(test) ? 1 : 2);
    tests.sort((a, b) => rank(a) - rank(b));
    return {
        status: outcomeOf(runs, summaries, stats, context.timedOut),
        runs: summaries,
        stats,
        durationMs,
        tests,
        ...(note ? { note } : {}),
        ...(visualChanges.length > 0 ? { visualChanges } : {}),
    };
}
/** A run cancelled mid-way has no duration of its own: the time from its start to its end. */
function wallClock(run) {
    const end = run.completedAt ?? run.cancelledAt;
    if (!run.startedAt || !end)
        return 0;
    return Math.max(0, Date.parse(end) - Date.parse(run.startedAt));
}
function outcomeOf(runs, summaries, stats, timedOut) {
    if (timedOut)
        return 'timeout';
    const failedRuns = runs.filter((run) => run.status === 'failed');
    if (failedRuns.length > 0) {
        // A failed run without failed tests (or with a runner error) is the runner's failure.
        if (stats.failed === 0 || summaries.some((run) => run.runnerError))
            return 'error';
        return 'failed';
    }
    if (runs.some((run) => run.status === 'cancelled'))
        return 'cancelled';
    return 'passed';
}
/** The outcome fails the step per `fail-on`. */
const failsStep = (status, failOn) => failOn.includes(status);

;// CONCATENATED MODULE: ./src/artifacts.ts





/** A storage key as a relative path that cannot escape its directory. */
function safeRelativePath(key) {
    const parts = key
        .split(/[\\/]+/)
        .map((part) => part.replace(/[^\w.\- ()@+=,]/g, '_'))
        .filter((part) => part && part !== '.' && part !== '..');
    return parts.length > 0 ? external_node_path_default().join(...parts) : 'artifact';
}
/** Keeps every artifact, or with `failed` only the per-test artifacts of failed tests. */
function selectArtifacts(artifacts, mode, failedNames) {
    if (mode === 'none')
        return [];
    if (mode === 'all')
        return [...artifacts];
    return artifacts.filter((artifact) => artifact.testName !== undefined && failedNames.has(artifact.testName));
}
/**
 * Downloads the runs' artifacts (presigned URLs, fetched without the API key) and their HTML
 * reports into `dir`.
 */
async function collectArtifacts(client, runs, results, options) {
    const files = [];
    let reportPath;
    const failedNames = new Set(results.tests.filter(isFailedTest).map((test) => test.name));
    external_node_fs_default().mkdirSync(options.dir, { recursive: true });
    for (const run of runs) {
        const runDir = external_node_path_default().join(options.dir, run.id);
        external_node_fs_default().mkdirSync(runDir, { recursive: true });
        if (run.status === 'completed' || run.status === 'failed') {
            try {
                const file = external_node_path_default().join(runDir, 'report.html');
                external_node_fs_default().writeFileSync(file, await client.report(run.id));
                files.push(file);
                reportPath ??= file;
            }
            catch (error) {
                options.log(`No HTML report for run ${run.id}: ${error.message}`);
            }
        }
        if (options.mode === 'none')
            continue;
        const selected = selectArtifacts(await client.artifacts(run.id), options.mode, failedNames);
        for (const artifact of selected) {
            const file = external_node_path_default().join(runDir, safeRelativePath(artifact.key));
            external_node_fs_default().mkdirSync(external_node_path_default().dirname(file), { recursive: true });
            try {
                const bytes = await downloadSigned(artifact.url, file);
                files.push(file);
                options.debug?.(`Downloaded artifact ${artifact.key} (${bytes} bytes)`);
            }
            catch (error) {
                options.log(`Could not download artifact ${artifact.key}: ${error.message}`);
            }
        }
    }
    return { dir: options.dir, files, reportPath };
}
class DownloadError extends Error {
    name = 'DownloadError';
}
/**
 * Fetches a presigned URL into `file` (3 attempts on network errors and 5xx) and returns the
 * byte count. A signed URL is a credential for its lifetime: no message, log line or error
 * made here contains it (nor does anything else: no library that logs at debug level sees it).
 */
async function downloadSigned(url, file, options = {}) {
    const attempts = options.attempts ?? 3;
    let problem = '';
    for (let attempt = 1; attempt <= attempts; attempt++) {
        if (attempt > 1)
            await new Promise((resolve) => setTimeout(resolve, (options.backoffMs ?? 500) * 2 ** (attempt - 2)));
        let response;
        try {
            response = await (0,undici/* request */.Em)(url, { method: 'GET' });
        }
        catch (error) {
            problem = `network error (${error.code ?? error.name})`;
            continue;
        }
        if (response.statusCode >= 200 && response.statusCode < 300) {
            await (0,promises_.pipeline)(response.body, external_node_fs_default().createWriteStream(file));
            return external_node_fs_default().statSync(file).size;
        }
        await response.body.dump();
        problem = `HTTP ${response.statusCode}`;
        if (response.statusCode < 500)
            break;
    }
    throw new DownloadError(problem);
}
/** Uploads the collected files as one workflow artifact when the Actions runtime is present. */
async function uploadArtifact(collected, options) {
    const env = options.env ?? process.env;
    if (!env.ACTIONS_RUNTIME_TOKEN || !env.ACTIONS_RESULTS_URL || collected.files.length === 0)
        return undefined;
    const { DefaultArtifactClient } = await Promise.all(/* import() */[__webpack_require__.e(351), __webpack_require__.e(220)]).then(__webpack_require__.bind(__webpack_require__, 67220));
    const response = await new DefaultArtifactClient().uploadArtifact(options.name, collected.files, collected.dir, {
        ...(options.retentionDays ? { retentionDays: options.retentionDays } : {}),
    });
    const url = response.id && env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID
        ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}/artifacts/${response.id}`
        : undefined;
    return { id: response.id, url };
}

// EXTERNAL MODULE: ./node_modules/zod/v4/classic/schemas.js + 11 modules
var schemas = __webpack_require__(92857);
// EXTERNAL MODULE: ./node_modules/zod/v4/classic/coerce.js
var coerce = __webpack_require__(49567);
;// CONCATENATED MODULE: ./contract/src/common.ts

/**
 * Every error: the spec's `message`, and a stable `code` (e.g. `TEST_NOT_FOUND`) for programs
 * to branch on; messages may be reworded, codes are never renamed. Some errors add fields.
 */
const errorBody = schemas/* object */.Ikc({
    message: schemas/* string */.YjP(),
    code: schemas/* string */.YjP().describe('Stable error code, e.g. `TEST_NOT_FOUND`: branch on this, not on `message`.'),
});
/** The rate limiter's 429 (the spec's body), with its code. */
const rateLimitBody = schemas/* object */.Ikc({
    error: schemas/* literal */.euz('Too many requests'),
    code: schemas/* literal */.euz('RATE_LIMITED'),
});
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
/**
 * A whole-number query parameter (`limit`, `page`) whose every failure states the rule, e.g.
 * "limit must be a whole number from 1 to 500" for `limit=0`, `limit=abc` or `limit=1.5`.
 */
const queryInteger = (name, min, max) => {
    const message = `${name} must be a whole number ${max === undefined ? `${min} or more` : `from ${min} to ${max}`}`;
    const atLeast = coerce/* number */.ai({ error: message }).int(message).min(min, message);
    return max === undefined ? atLeast : atLeast.max(max, message);
};
const isoTimestamp = schemas/* string */.YjP();
const runStatus = schemas/* enum */.k5n(['pending', 'queued', 'running', 'completed', 'failed', 'cancelled']);
const terminalRunStatuses = ['completed', 'failed', 'cancelled'];
const testStatus = schemas/* enum */.k5n(['draft', 'active', 'archived']);
/** `{ data: null }`: an operation with no payload. */
const noPayloadResponse = schemas/* object */.Ikc({ data: schemas/* null */.chJ() });

;// CONCATENATED MODULE: ./contract/src/data-set.ts

/**
 * A test's data set: a table the test runs over, once per row (Ghost Inspector's and mabl's
 * data-driven tests). Steps read the row's cells as `{{data.<column>}}`; each row is its own
 * result, named by the cell of `nameColumn` (default: the first column).
 */
const maxDataSetRows = 200;
const maxDataSetColumns = 32;
/** Bytes of one cell (UTF-8). */
const maxDataSetCellBytes = 4096;
const dataColumnName = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const cellBytes = (cell) => new TextEncoder().encode(cell).length;
const dataSet = schemas/* object */.Ikc({
    columns: schemas/* array */.YOg(schemas/* string */.YjP()
        .regex(dataColumnName, 'a column name starts with a letter or _ and holds only letters, digits and _ (at most 64)'), { error: 'columns must be an array of column names' })
        .min(1, 'a data set needs at least one column')
        .max(maxDataSetColumns, `a data set has at most ${maxDataSetColumns} columns`),
    rows: schemas/* array */.YOg(schemas/* array */.YOg(schemas/* string */.YjP({ error: 'a cell must be a string' })), {
        error: 'rows must be an array of rows (arrays of strings)',
    })
        .min(1, 'a data set needs at least one row')
        .max(maxDataSetRows, `a data set has at most ${maxDataSetRows} rows`),
    nameColumn: schemas/* string */.YjP().optional(),
})
    .superRefine((set, ctx) => {
    const seen = new Set();
    for (const column of set.columns) {
        if (seen.has(column))
            ctx.addIssue({ code: 'custom', path: ['columns'], message: `column "${column}" appears twice` });
        seen.add(column);
    }
    if (set.nameColumn !== undefined && !set.columns.includes(set.nameColumn))
        ctx.addIssue({
            code: 'custom',
            path: ['nameColumn'],
            message: `nameColumn "${set.nameColumn}" is not one of the columns`,
        });
    set.rows.forEach((row, index) => {
        if (row.length !== set.columns.length)
            ctx.addIssue({
                code: 'custom',
                path: ['rows', index],
                message: `row ${index + 1} has ${row.length} cells, the data set ${set.columns.length} columns`,
            });
        row.forEach((cell, column) => {
            if (cellBytes(cell) > maxDataSetCellBytes)
                ctx.addIssue({
                    code: 'custom',
                    path: ['rows', index, column],
                    message: `row ${index + 1}, column "${set.columns[column] ?? column}" is over ${maxDataSetCellBytes} bytes`,
                });
        });
    });
});
/**
 * The rows of a data set with their names: the `nameColumn` cell (default: the first column),
 * `row <n>` when that cell is empty, and `<name> (row <n>)` for a name an earlier row took, so
 * every row's title is unique.
 */
function dataRows(set) {
    const nameAt = Math.max(0, set.nameColumn ? set.columns.indexOf(set.nameColumn) : 0);
    const used = new Set();
    return set.rows.map((row, index) => {
        const cell = (row[nameAt] ?? '').trim().replace(/\s+/g, ' ').slice(0, 100);
        let name = cell === '' ? `row ${index + 1}` : cell;
        if (used.has(name))
            name = `${name} (row ${index + 1})`;
        used.add(name);
        const values = {};
        set.columns.forEach((column, at) => {
            values[column] = row[at] ?? '';
        });
        return { index, name, values };
    });
}
const DATA_REFERENCE = /\{\{\s*data\.([^}\s]*)\s*\}\}/g;
/** The columns a text reads as `{{data.<column>}}`, in order of appearance. */
function dataReferences(text) {
    return [...text.matchAll(DATA_REFERENCE)].map((match) => match[1] ?? '');
}
/** A result's data row (additive on run results): which row of the test's data set it ran. */
const dataRowRef = schemas/* object */.Ikc({ index: schemas/* number */.aig().int(), name: schemas/* string */.YjP() });

// EXTERNAL MODULE: ./contract/src/run-config.ts + 1 modules
var run_config = __webpack_require__(30386);
;// CONCATENATED MODULE: ./contract/src/tests.ts




/** Wire schemas of `/v1/tests` and `/v1/steps`. Step actions are checked with `stepAction`. */
const testType = schemas/* enum */.k5n(['ui', 'api']);
const testTypeFilter = schemas/* enum */.k5n(['all', 'ui', 'api']);
const oneOrMany = (item) => schemas/* union */.KCZ([item, schemas/* array */.YOg(item)])
    .optional()
    .transform((value) => (value === undefined ? undefined : Array.isArray(value) ? value : [value]));
const pageNumber = queryInteger('page', 0).default(0);
const pageLimit = queryInteger('limit', 1).default(50);
const listTestsQuery = schemas/* object */.Ikc({
    limit: pageLimit,
    page: pageNumber,
    name: schemas/* string */.YjP().optional(),
    status: oneOrMany(testStatus),
    tagIds: oneOrMany(uuid),
    type: testTypeFilter.default('all'),
    testId: uuid.optional(),
    /**
     * Extension of the spec (the console's tree loads its top level first): `true` lists only the
     * tests that sit in no directory. Filters, sort and pagination apply as without it; `false` or
     * absent changes nothing. Cannot be combined with `testId` (400).
     */
    topLevel: schemas/* enum */.k5n(['true', 'false'], { error: 'topLevel must be true or false' }).optional(),
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
    config: run_config/* runConfig */.aA.optional(),
    steps: stepInputList.optional(),
    tags: schemas/* array */.YOg(uuid).optional(),
    vars: jsonObject.nullable().optional(),
    parameters: jsonObject.nullable().optional(),
    metadata: testMetadataInput.optional(),
    /** The table the test runs over, once per row (`{{data.<column>}}` in steps); null removes it. */
    dataSet: dataSet.nullable().optional(),
});
const updateTestData = schemas/* object */.Ikc({
    name: schemas/* string */.YjP().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters').optional(),
    status: testStatus.optional(),
    directory: schemas/* boolean */.zMY().optional(),
    /**
     * Extension of the spec: moves the test (with its descendants) into this directory, or to the
     * top level when null. The spec's PUT offers no other way to move a test between directories.
     */
    parentTestId: uuid.nullable().optional(),
    config: run_config/* runConfig */.aA.optional(),
    steps: stepInputList.optional(),
    tags: schemas/* array */.YOg(uuid).optional(),
    vars: jsonObject.nullable().optional(),
    parameters: jsonObject.nullable().optional(),
    metadata: testMetadataInput.optional(),
    /** The table the test runs over, once per row (`{{data.<column>}}` in steps); null removes it. */
    dataSet: dataSet.nullable().optional(),
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
    dataSet: schemas/* unknown */.L5J().optional(),
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
    test: testListItem.extend({
        editVersion: schemas/* number */.aig().int(),
        revisionId: schemas/* string */.YjP(),
        branchId: schemas/* string */.YjP(),
        /** The test's data set (additive): null for a test that runs once. */
        dataSet: dataSet.nullable().optional(),
    }),
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

// EXTERNAL MODULE: ./node_modules/zod/v4/classic/iso.js
var iso = __webpack_require__(64377);
;// CONCATENATED MODULE: ./contract/src/history.ts


/**
 * Where a run's code came from, sent by the action and CLI with a trigger (all optional,
 * additive): the commit, the ref, the pull request's number and base ref, and a free label
 * (a deploy, an environment). Stored with the run; its test results carry it in their history.
 */
const runSource = schemas/* object */.Ikc({
    commitSha: schemas/* string */.YjP().max(64, 'metadata.commitSha must be at most 64 characters').optional(),
    ref: schemas/* string */.YjP().max(255, 'metadata.ref must be at most 255 characters').optional(),
    baseRef: schemas/* string */.YjP().max(255, 'metadata.baseRef must be at most 255 characters').optional(),
    pullRequest: schemas/* number */.aig({ error: 'metadata.pullRequest must be a number' })
        .int('metadata.pullRequest must be a whole number')
        .positive('metadata.pullRequest must be positive')
        .optional(),
    label: schemas/* string */.YjP().max(200, 'metadata.label must be at most 200 characters').optional(),
});
const historyStatus = schemas/* enum */.k5n(['passed', 'failed', 'skipped', 'flaky']);
/** One stored result of a test in a run (`GET /v1/tests/:testId/history` item). */
const testHistoryEntry = schemas/* object */.Ikc({
    runId: schemas/* string */.YjP(),
    testId: schemas/* string */.YjP(),
    testRevisionId: schemas/* string */.YjP().nullable(),
    branchId: schemas/* string */.YjP(),
    branchName: schemas/* string */.YjP(),
    /** apiKey | schedule | manual. */
    trigger: schemas/* string */.YjP(),
    /** `flaky`: failed, then passed on a retry of the same run. */
    status: historyStatus,
    duration: schemas/* number */.aig().int(),
    attempts: schemas/* number */.aig().int(),
    failedStepId: schemas/* string */.YjP().nullable(),
    /** The failure normalised (step, assertion kind, selector; volatile values stripped); null when it passed. */
    fingerprint: schemas/* string */.YjP().nullable(),
    errorMessage: schemas/* string */.YjP().nullable(),
    /** Each step's duration in the attempt that decided the status, in document order. */
    stepDurations: schemas/* array */.YOg(schemas/* object */.Ikc({ stepId: schemas/* string */.YjP(), duration: schemas/* number */.aig().int() })),
    commitSha: schemas/* string */.YjP().nullable(),
    ref: schemas/* string */.YjP().nullable(),
    pullRequest: schemas/* number */.aig().int().nullable(),
    label: schemas/* string */.YjP().nullable(),
    createdAt: isoTimestamp,
});
/**
 * A step whose duration moved: its median over the latest 5 results (`after`, ms) against the
 * median before them in the window (`before`), when it at least doubled and grew by 500 ms or
 * more. `position` counts the test's steps in document order from 1; `since` is the result
 * where the longer durations began.
 */
const stepShift = schemas/* object */.Ikc({
    stepId: schemas/* string */.YjP(),
    position: schemas/* number */.aig().int(),
    before: schemas/* number */.aig().int(),
    after: schemas/* number */.aig().int(),
    since: schemas/* object */.Ikc({ runId: schemas/* string */.YjP(), createdAt: isoTimestamp }).nullable(),
});
/** Derived over the filtered results of the summary's window (the latest `window` of them). */
const testHistorySummary = schemas/* object */.Ikc({
    window: schemas/* number */.aig().int(),
    runs: schemas/* number */.aig().int(),
    /** Share of passed (or flaky) results among the non-skipped ones, 0..1; null with none. */
    passRate: schemas/* number */.aig().nullable(),
    /**
     * Share of flaky results, 0..1: passed on a retry, or both outcomes on the same test
     * revision and commit within the window.
     */
    flakeRate: schemas/* number */.aig().nullable(),
    /** The first result of the current failure streak (null when the latest result passed). */
    failingSince: schemas/* object */.Ikc({ runId: schemas/* string */.YjP(), createdAt: isoTimestamp, commitSha: schemas/* string */.YjP().nullable() })
        .nullable(),
    durationP50: schemas/* number */.aig().int().nullable(),
    durationP95: schemas/* number */.aig().int().nullable(),
    /** Median duration of the latest 5 decided results and of the earlier ones (null until 5 of each). */
    durationTrend: schemas/* object */.Ikc({ recentP50: schemas/* number */.aig().int(), earlierP50: schemas/* number */.aig().int() }).nullable(),
    stepShifts: schemas/* array */.YOg(stepShift),
});
const testQuarantine = schemas/* object */.Ikc({
    testId: schemas/* string */.YjP(),
    reason: schemas/* string */.YjP(),
    owner: schemas/* string */.YjP().nullable(),
    expiresAt: isoTimestamp.nullable(),
    createdBy: schemas/* string */.YjP(),
    createdAt: isoTimestamp,
});
const testHistoryResponse = schemas/* object */.Ikc({
    data: schemas/* array */.YOg(testHistoryEntry),
    pagination: pagination,
    summary: testHistorySummary,
    quarantine: testQuarantine.nullable(),
});
/** Query of `GET /v1/tests/:testId/history`. */
const testHistoryQuery = schemas/* object */.Ikc({
    limit: queryInteger('limit', 1, 500).default(20),
    page: queryInteger('page', 0).default(0),
    /** A branch name of the project (default: every branch). */
    branch: schemas/* string */.YjP().min(1, 'branch must not be empty').optional(),
    status: historyStatus.optional(),
    since: iso/* datetime */.w$({ offset: true, error: 'since must be an ISO 8601 date-time' }).optional(),
    /** How many latest results the summary looks at. */
    window: queryInteger('window', 1, 1000).default(50),
});
/**
 * Where a failure of a run stands: `quarantined` (the test is in quarantine: it does not fail
 * the action or CLI), `flaky` (flaky in its latest results), `known`
 * (the same fingerprint failing on the base branch), else `new`.
 */
const triageClass = schemas/* enum */.k5n(['new', 'known', 'flaky', 'quarantined']);
const runTriageItem = schemas/* object */.Ikc({
    testId: schemas/* string */.YjP(),
    name: schemas/* string */.YjP(),
    status: schemas/* string */.YjP(),
    triage: triageClass,
    fingerprint: schemas/* string */.YjP().nullable(),
    /** The base branch's latest run with the same failure (`known`). */
    knownSince: schemas/* object */.Ikc({ runId: schemas/* string */.YjP(), createdAt: isoTimestamp, commitSha: schemas/* string */.YjP().nullable() })
        .nullable(),
    /** Flake rate of the test over its recent history on any branch, 0..1 (null without history). */
    flakeRate: schemas/* number */.aig().nullable(),
    quarantine: testQuarantine.nullable(),
});
/** `GET /v1/test-runs/:runId/triage`. */
const runTriage = schemas/* object */.Ikc({
    runId: schemas/* string */.YjP(),
    /** The branch the failures were compared with. */
    baseBranch: schemas/* string */.YjP().nullable(),
    failures: schemas/* array */.YOg(runTriageItem),
    counts: schemas/* object */.Ikc({
        new: schemas/* number */.aig().int(),
        known: schemas/* number */.aig().int(),
        flaky: schemas/* number */.aig().int(),
        quarantined: schemas/* number */.aig().int(),
    }),
});
const runTriageResponse = dataOf(runTriage);
/** `PUT /v1/tests/:testId/quarantine`. */
const quarantineBody = schemas/* object */.Ikc({
    reason: schemas/* string */.YjP({ error: 'reason is required' })
        .trim()
        .min(1, 'reason is required')
        .max(500, 'reason must be at most 500 characters'),
    owner: schemas/* string */.YjP().trim().min(1).max(200, 'owner must be at most 200 characters').optional(),
    expiresAt: iso/* datetime */.w$({ offset: true, error: 'expiresAt must be an ISO 8601 date-time' }).optional(),
});
const testQuarantineResponse = dataOf(testQuarantine);
/** Where a test stands on a branch, derived from its latest results there. */
const testHealth = schemas/* object */.Ikc({
    testId: schemas/* string */.YjP(),
    /** Its name in its latest recorded run. */
    name: schemas/* string */.YjP(),
    lastRunId: schemas/* string */.YjP(),
    lastStatus: historyStatus,
    lastResultAt: isoTimestamp,
    failingSince: schemas/* object */.Ikc({ runId: schemas/* string */.YjP(), createdAt: isoTimestamp, commitSha: schemas/* string */.YjP().nullable() })
        .nullable(),
    passRate: schemas/* number */.aig().nullable(),
    flakeRate: schemas/* number */.aig().nullable(),
    /** How many latest results the rates are over. */
    sampleSize: schemas/* number */.aig().int(),
});
/**
 * Whether a quarantined test has earned its way out: its decided results since it was put in
 * quarantine, how many passed, and the lower bound of the pass rate's 95 % Wilson interval.
 * It leaves quarantine by itself once `passRateLowerBound` reaches `releaseAt`.
 */
const quarantineEvidence = schemas/* object */.Ikc({
    results: schemas/* number */.aig().int(),
    passes: schemas/* number */.aig().int(),
    passRateLowerBound: schemas/* number */.aig().nullable(),
    releaseAt: schemas/* number */.aig(),
});
const quarantinedTest = schemas/* object */.Ikc({
    testId: schemas/* string */.YjP(),
    /** Null when the test has no recorded result yet. */
    name: schemas/* string */.YjP().nullable(),
    quarantine: testQuarantine,
    evidence: quarantineEvidence,
});
/** A test put in or taken out of quarantine, by a person or by the flake and release rules. */
const quarantineEvent = schemas/* object */.Ikc({
    testId: schemas/* string */.YjP(),
    name: schemas/* string */.YjP().nullable(),
    kind: schemas/* enum */.k5n(['quarantined', 'released']),
    automatic: schemas/* boolean */.zMY(),
    actor: schemas/* string */.YjP(),
    reason: schemas/* string */.YjP(),
    evidence: quarantineEvidence.nullable(),
    createdAt: isoTimestamp,
});
/** `GET /v1/test-insights`: a project's flaky, failing and quarantined tests on one branch. */
const testInsights = schemas/* object */.Ikc({
    branchId: schemas/* string */.YjP(),
    branchName: schemas/* string */.YjP(),
    /** Flake rate above 0, highest first. */
    flaky: schemas/* array */.YOg(testHealth),
    /** Failing in their latest result, the most recently broken first. */
    failing: schemas/* array */.YOg(testHealth),
    quarantined: schemas/* array */.YOg(quarantinedTest),
    /** The latest quarantine changes of the project, newest first. */
    quarantineEvents: schemas/* array */.YOg(quarantineEvent),
    /** Automatic quarantine: the flake rate that puts a test in it (null: off). */
    autoQuarantineAt: schemas/* number */.aig().nullable(),
});
const testInsightsResponse = dataOf(testInsights);
const testInsightsQuery = schemas/* object */.Ikc({
    /** A branch id or name (default: the project's default branch). */
    branch: schemas/* string */.YjP().min(1, 'branch must not be empty').optional(),
    limit: queryInteger('limit', 1, 200).default(50),
});

;// CONCATENATED MODULE: ./contract/src/environments.ts


/**
 * Environments: per project, named sets of base URL, variables and secrets (`staging`,
 * `production`). A run, a schedule or a preset picks one by name; `{{env.NAME}}` in a step
 * reads its variable NAME and `{{secrets.X}}` looks in its secrets before the project's.
 */
/** How runs, schedules, presets, the action and the CLI name an environment. */
const environmentName = schemas/* string */.YjP({ error: 'environment must be a string' })
    .regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'environment must be 1 to 32 lowercase letters, digits, "-" or "_", starting with a letter or digit');
/** A variable or secret name: usable as `{{env.NAME}}` / `{{secrets.NAME}}` and in an environment variable. */
const entryName = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const entryNameRule = 'must be letters, digits and underscores, not starting with a digit (at most 128)';
/** At most this many variables, and as many secrets, per environment. */
const environmentEntriesMax = 100;
const httpUrl = schemas/* string */.YjP({ error: 'baseURL must be a string' })
    .max(2048, 'baseURL must be at most 2048 characters')
    .refine((value) => {
    try {
        const url = new URL(value);
        return url.protocol === 'http:' || url.protocol === 'https:';
    }
    catch {
        return false;
    }
}, 'baseURL must be an absolute http or https URL');
/** Names checked on the whole map, so the message names the key (a record's key error does not). */
const namedEntries = (kind) => (value, check) => {
    const names = Object.keys(value);
    if (names.length > environmentEntriesMax)
        check.addIssue({ code: 'custom', message: `at most ${environmentEntriesMax} ${kind}s` });
    for (const name of names.filter((candidate) => !entryName.test(candidate)))
        check.addIssue({ code: 'custom', message: `${kind} name "${name}" ${entryNameRule}` });
};
const environmentVariables = schemas/* record */.g1P(schemas/* string */.YjP(), schemas/* string */.YjP({ error: 'a variable value must be a string' })
    .max(8192, 'a variable value must be at most 8192 characters'))
    .superRefine(namedEntries('variable'));
/** Secrets to set (a value) or remove (`null`); names left out keep their value. */
const environmentSecretChanges = schemas/* record */.g1P(schemas/* string */.YjP(), schemas/* string */.YjP({ error: 'a secret value must be a string, or null to remove it' })
    .max(65_536, 'a secret value must be at most 65536 characters')
    .nullable())
    .superRefine(namedEntries('secret'));
/** A secret as listed: its name only, never the value. */
const environmentSecret = schemas/* object */.Ikc({
    name: schemas/* string */.YjP(),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
});
/** Item of `GET /console/v1/projects/:projectId/environments`. */
const environment = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    projectId: schemas/* string */.YjP(),
    name: schemas/* string */.YjP(),
    baseURL: schemas/* string */.YjP().nullable(),
    variables: schemas/* record */.g1P(schemas/* string */.YjP(), schemas/* string */.YjP()),
    secrets: schemas/* array */.YOg(environmentSecret),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
});
const environmentResponse = dataOf(environment);
const environmentListResponse = dataOf(schemas/* array */.YOg(environment));
const environmentCreateBody = schemas/* object */.Ikc({
    name: environmentName,
    baseURL: httpUrl.nullable().optional(),
    variables: environmentVariables.optional(),
    secrets: environmentSecretChanges.optional(),
});
/** `variables` replaces the whole map; `secrets` sets or removes the names it lists. */
const environmentUpdateBody = schemas/* object */.Ikc({
    name: environmentName.optional(),
    baseURL: httpUrl.nullable().optional(),
    variables: environmentVariables.optional(),
    secrets: environmentSecretChanges.optional(),
});

;// CONCATENATED MODULE: ./contract/src/healing.ts


/**
 * Locator suggestions and healing: when a step's locator finds nothing (or several elements),
 * the run records the page's closest elements; with `heal: retry` the step ran once more with
 * the best one. Additive fields of the run report; statuses keep the spec's values.
 */
/** One proposed element: the selector a step would store, and the same as Playwright code. */
const locatorSuggestion = schemas/* object */.Ikc({
    /** Playwright selector syntax, as steps store it (`internal:role=button[name="Save changes"i]`). */
    selector: schemas/* string */.YjP(),
    /** The same as Playwright's JavaScript writes it: `getByRole('button', { name: 'Save changes' })`. */
    locator: schemas/* string */.YjP(),
    /** 0…1: how close the element is to what the step's selector asked for. */
    score: schemas/* number */.aig(),
    /** How many elements it matched on the page when the step failed. */
    matches: schemas/* number */.aig().int(),
});
/** The failing locator of a test's failed step, with the page's closest elements, best first. */
const locatorSuggestions = schemas/* object */.Ikc({
    /** The step's node id (as in `failedStep.stepId` and `steps[].stepId`). */
    stepId: schemas/* string */.YjP(),
    /** 1-based position of the step in the test's step tree (`steps[]`). */
    step: schemas/* number */.aig().int(),
    /** The selector as the step holds it, and as Playwright code. */
    from: schemas/* string */.YjP(),
    fromLocator: schemas/* string */.YjP(),
    /** `none`: it matched nothing; `many`: several elements where the action needs one. */
    problem: schemas/* enum */.k5n(['none', 'many']),
    suggestions: schemas/* array */.YOg(locatorSuggestion),
});
/** A step that passed with a suggestion instead of its own locator (`heal: retry`). */
const healedStep = schemas/* object */.Ikc({
    stepId: schemas/* string */.YjP(),
    step: schemas/* number */.aig().int(),
    /** The step's selector, which found nothing. */
    from: schemas/* string */.YjP(),
    /** The selector it passed with, and the same as Playwright code. */
    to: schemas/* string */.YjP(),
    locator: schemas/* string */.YjP(),
});
/** Body of `POST /console/v1/test-runs/:runId/tests/:testId/steps/:stepId/use-locator`. */
const useLocatorBody = schemas/* object */.Ikc({
    /** One of the step's suggestions in this run: its `selector` (or its `locator` text). */
    locator: schemas/* string */.YjP().min(1, 'locator must not be empty').max(4_000),
});
const useLocatorResult = schemas/* object */.Ikc({
    testId: schemas/* string */.YjP(),
    stepId: schemas/* string */.YjP(),
    /** The selector the step holds now. */
    selector: schemas/* string */.YjP(),
    /** The test's working revision and its edit version after the change. */
    revisionId: schemas/* string */.YjP(),
    editVersion: schemas/* number */.aig().int(),
});
const useLocatorResponse = dataOf(useLocatorResult);

;// CONCATENATED MODULE: ./contract/src/visual.ts


/**
 * Visual checks: the screenshots of `assertScreenshot` steps that are not their branch's
 * baseline, their review (approve makes the screenshot the baseline, reject keeps it failing)
 * and the baselines of a branch.
 */
/** One visual change as the run report and the webhook body list it. */
const visualChangeSummary = schemas/* object */.Ikc({
    testId: schemas/* string */.YjP(),
    testName: schemas/* string */.YjP(),
    stepId: schemas/* string */.YjP(),
    /** `new`: no baseline yet (the step passed); `changed`: beyond the threshold (it failed). */
    status: schemas/* enum */.k5n(['new', 'changed']),
    diffPixels: schemas/* number */.aig().int(),
    ratio: schemas/* number */.aig(),
    /**
     * Read-only, in the run detail: a presigned URL (no API key, valid 7 days) of the change's
     * diff, else of its screenshot, for thumbnails where no key can be sent (PR comments).
     */
    imageUrl: schemas/* string */.YjP().optional(),
});
const visualDecision = schemas/* enum */.k5n(['pending', 'approved', 'rejected']);
const visualChange = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    runId: schemas/* string */.YjP(),
    branchId: schemas/* string */.YjP(),
    testId: schemas/* string */.YjP(),
    testName: schemas/* string */.YjP(),
    stepId: schemas/* string */.YjP(),
    stepName: schemas/* string */.YjP(),
    browser: schemas/* string */.YjP(),
    /** `1280x720`. */
    viewport: schemas/* string */.YjP(),
    status: schemas/* enum */.k5n(['new', 'changed']),
    diffPixels: schemas/* number */.aig().int(),
    ratio: schemas/* number */.aig(),
    width: schemas/* number */.aig().int(),
    height: schemas/* number */.aig().int(),
    decision: visualDecision,
    decidedBy: schemas/* string */.YjP().nullable(),
    decidedAt: isoTimestamp.nullable(),
    createdAt: isoTimestamp,
    /** API paths of the pictures (PNG); null when there is none (no baseline, no diff, left out by a cap). */
    images: schemas/* object */.Ikc({
        baseline: schemas/* string */.YjP().nullable(),
        actual: schemas/* string */.YjP().nullable(),
        diff: schemas/* string */.YjP().nullable(),
    }),
});
const visualChangeListResponse = schemas/* object */.Ikc({
    data: schemas/* array */.YOg(visualChange),
    summary: schemas/* object */.Ikc({ new: schemas/* number */.aig().int(), changed: schemas/* number */.aig().int(), pending: schemas/* number */.aig().int() }),
});
/** Approve or reject some of a run's changes (`changeIds`), or every pending one (no body, or no ids). */
const visualDecisionBody = schemas/* object */.Ikc({
    changeIds: schemas/* array */.YOg(uuid, { error: 'changeIds must be a list of visual change ids' })
        .min(1, 'changeIds must name at least one change; leave it out for all of the run')
        .max(500, 'changeIds takes at most 500 ids')
        .optional(),
})
    .optional();
const visualDecisionResponse = dataOf(schemas/* object */.Ikc({ decision: schemas/* enum */.k5n(['approved', 'rejected']), changes: schemas/* array */.YOg(visualChange) }));
const visualBaseline = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    branchId: schemas/* string */.YjP(),
    /** True when the branch has none of its own and uses its project's default branch's. */
    inherited: schemas/* boolean */.zMY(),
    testId: schemas/* string */.YjP(),
    stepId: schemas/* string */.YjP(),
    browser: schemas/* string */.YjP(),
    viewport: schemas/* string */.YjP(),
    width: schemas/* number */.aig().int(),
    height: schemas/* number */.aig().int(),
    bytes: schemas/* number */.aig().int(),
    sourceRunId: schemas/* string */.YjP().nullable(),
    approvedBy: schemas/* string */.YjP(),
    approvedAt: isoTimestamp,
    image: schemas/* string */.YjP(),
});
const visualBaselineListResponse = schemas/* object */.Ikc({ data: schemas/* array */.YOg(visualBaseline) });
const visualBaselineQuery = schemas/* object */.Ikc({ testId: uuid.optional() });

;// CONCATENATED MODULE: ./contract/src/vitals.ts

/**
 * One Web Vitals measurement of a test (`measureVitals` or `assertVitals` step), in the run
 * report's test result: milliseconds, CLS unitless; null where the page gave no value (INP
 * without an interaction, LCP on a page without content). Additive.
 */
const stepVitals = schemas/* object */.Ikc({
    stepId: schemas/* string */.YjP(),
    label: schemas/* string */.YjP().nullable(),
    url: schemas/* string */.YjP(),
    lcpMs: schemas/* number */.aig().nullable(),
    cls: schemas/* number */.aig(),
    inpMs: schemas/* number */.aig().nullable(),
    tbtMs: schemas/* number */.aig(),
    fcpMs: schemas/* number */.aig().nullable(),
    ttfbMs: schemas/* number */.aig().nullable(),
    domContentLoadedMs: schemas/* number */.aig().nullable(),
    loadMs: schemas/* number */.aig().nullable(),
});

;// CONCATENATED MODULE: ./contract/src/runs.ts









/** `POST /v1/tests/:testId/remote-run` on a leaf test. */
const remoteRunSingle = schemas/* object */.Ikc({ runId: schemas/* string */.YjP(), status: runStatus });
const remoteRunSingleResponse = dataOf(remoteRunSingle);
/**
 * A test of the run's target that the run did not include, and why: directory, tag and bulk
 * runs take active tests only, and leave out an active test whose own config names a browser
 * not installed where the service runs (`reason`, `browser`). Additive; at most 100 named, the
 * run's metadata has the count.
 */
const leftOutTest = schemas/* object */.Ikc({
    testId: schemas/* string */.YjP(),
    name: schemas/* string */.YjP(),
    status: schemas/* enum */.k5n(['draft', 'archived', 'active']),
    /** Present when the status is not the reason. */
    reason: schemas/* literal */.euz('browser not installed').optional(),
    browser: schemas/* enum */.k5n(['firefox', 'webkit']).optional(),
});
/** Directory (single endpoint) and bulk (`POST /v1/tests/remote-run`) runs. */
const remoteRunMany = schemas/* object */.Ikc({
    runId: schemas/* string */.YjP(),
    status: runStatus,
    totalTests: schemas/* number */.aig().int(),
    message: schemas/* string */.YjP(),
    leftOut: schemas/* array */.YOg(leftOutTest).optional(),
});
const remoteRunManyResponse = dataOf(remoteRunMany);
/** Either shape: `totalTests`/`message` are absent for a single leaf. */
const remoteRunResult = schemas/* object */.Ikc({
    runId: schemas/* string */.YjP(),
    status: runStatus,
    totalTests: schemas/* number */.aig().int().optional(),
    message: schemas/* string */.YjP().optional(),
    leftOut: schemas/* array */.YOg(leftOutTest).optional(),
});
const remoteRunResponse = dataOf(remoteRunResult);
/** Body of `POST /v1/tests/remote-run`. */
const bulkRemoteRunBody = schemas/* object */.Ikc({
    testIds: schemas/* array */.YOg(schemas/* string */.YjP()).optional(),
    tagId: schemas/* string */.YjP().optional(),
    config: run_config/* runConfig */.aA.optional(),
    /** A config preset of the project (console sessions only): its config, with `config` over it. */
    presetId: schemas/* uuid */.uRe({ error: 'presetId must be a preset UUID' }).optional(),
    /** An environment of the project by name (additive): its base URL, variables and secrets. */
    environment: environmentName.optional(),
    /** Where the run's code came from (commit, ref, pull request, label); additive. */
    metadata: runSource.optional(),
});
/** Body of `POST /v1/tests/:testId/remote-run`. */
const singleRemoteRunBody = schemas/* object */.Ikc({
    config: run_config/* runConfig */.aA.optional(),
    presetId: schemas/* uuid */.uRe({ error: 'presetId must be a preset UUID' }).optional(),
    environment: environmentName.optional(),
    metadata: runSource.optional(),
})
    .loose();
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
    /** The environment the run used, by name (additive); null for none. */
    environment: schemas/* string */.YjP().nullable().optional(),
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
    /** Passed only with a suggestion in place of its locator (`heal: retry`; additive). */
    healed: schemas/* object */.Ikc({ from: schemas/* string */.YjP(), to: schemas/* string */.YjP(), locator: schemas/* string */.YjP() }).optional(),
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
    /** The failed step's locator found nothing (or several): the page's closest elements (additive). */
    locatorSuggestions: locatorSuggestions.nullable().optional(),
    /**
     * Steps that passed only with a suggestion (`heal: retry`); the test's status stays `passed`
     * (the spec's values), this says it was healed (additive).
     */
    healed: schemas/* array */.YOg(healedStep).optional(),
    /** Web Vitals its `measureVitals` / `assertVitals` steps measured, in step order (additive). */
    vitals: schemas/* array */.YOg(stepVitals).optional(),
    /**
     * A failed test's standing across runs (`GET /v1/test-runs/:runId/triage`): new, known on
     * the base branch, flaky or quarantined. Added when the run is read, absent on passed tests
     * and where no history is kept (additive).
     */
    triage: triageClass.optional(),
    /** The row of the test's data set this result ran (additive; absent for a test without one). */
    dataRow: dataRowRef.optional(),
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
    /** Screenshots of `assertScreenshot` steps that are not their baseline (review: visual-changes). */
    visualChanges: schemas/* array */.YOg(visualChangeSummary).optional(),
});
/**
 * One runner slot that took part in an orchestrated (split) run: which worker, the tests it
 * ran (batches it took, summed) and its busy time. Additive: the console shows it.
 */
const runShard = schemas/* object */.Ikc({
    worker: schemas/* string */.YjP(),
    tests: schemas/* number */.aig().int(),
    batches: schemas/* number */.aig().int(),
    durationMs: schemas/* number */.aig().int(),
});
/**
 * One batch of an orchestrated run's live queue: the tests it holds (ids of the report's
 * `testResults`), where and how it ran. Additive, split runs only: the console shows it.
 */
const runBatch = schemas/* object */.Ikc({
    position: schemas/* number */.aig().int(),
    status: schemas/* enum */.k5n(['pending', 'claimed', 'done', 'cancelled']),
    testIds: schemas/* array */.YOg(schemas/* string */.YjP()),
    /** The slot that took it last (`host:pid:nonce#slot`), null while pending. */
    worker: schemas/* string */.YjP().nullable(),
    /** Times it was claimed: 2 when its first runner died and another slot ran it again. */
    attempts: schemas/* number */.aig().int(),
    expectedMs: schemas/* number */.aig().int(),
    startedAt: isoTimestamp.nullable(),
    completedAt: isoTimestamp.nullable(),
    durationMs: schemas/* number */.aig().int().nullable(),
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
    batches: schemas/* array */.YOg(runBatch).optional(),
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
    limit: queryInteger('limit', 1, 500).default(20),
    page: queryInteger('page', 0).default(0),
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

;// CONCATENATED MODULE: ./src/client.ts



/**
 * The fields of `GET /v1/tests` items the trigger reads to expand tags and directories past
 * the 100-tests cap: the contract's item, narrowed (other fields pass through unchecked).
 */
const testListBriefResponse = schemas/* object */.Ikc({
    children: schemas/* array */.YOg(testListItem.pick({ id: true, directory: true, status: true }).loose()),
    pagination: pagination,
});
class ApiError extends Error {
    name = 'ApiError';
    status;
    constructor(status, message) {
        super(message);
        this.status = status;
    }
}
/**
 * A non-idempotent request (a trigger POST) failed in a way that does not say whether the
 * service acted on it: a 5xx (a proxy's 504 while the service started the run) or a socket
 * error after the request may have been sent.
 */
class AmbiguousRequestError extends ApiError {
    name = 'AmbiguousRequestError';
}
/**
 * Socket errors raised before a byte of the request can have reached the service (no
 * connection, no address): the only network errors after which a trigger POST is resent as is.
 */
const notSentCodes = new Set([
    'ECONNREFUSED',
    'ENOTFOUND',
    'EAI_AGAIN',
    'EHOSTUNREACH',
    'ENETUNREACH',
    'UND_ERR_CONNECT_TIMEOUT',
]);
/**
 * How far the service's clock may be behind ours when a run it created is matched to the
 * trigger request that may have created it.
 */
const clockSkewMs = 60_000;
const sleepReal = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** Seconds or an HTTP date; falls back to 5 s. */
function retryAfterMs(header, now = Date.now()) {
    const value = Array.isArray(header) ? header[0] : header;
    if (!value)
        return 5000;
    const seconds = Number(value);
    if (Number.isFinite(seconds))
        return Math.max(0, seconds * 1000);
    const date = Date.parse(value);
    return Number.isNaN(date) ? 5000 : Math.max(0, date - now);
}
class StepdeckClient {
    /** Requests sent (including retries); read by the benchmark. */
    requests = 0;
    #options;
    #sleep;
    constructor(options) {
        this.#options = options;
        this.#sleep = options.sleep ?? sleepReal;
    }
    async triggerTest(testId, config, metadata, environment) {
        return this.#start(testId, `/v1/tests/${testId}/remote-run`, {
            ...(config ? { config } : {}),
            ...(environment ? { environment } : {}),
            ...(metadata ? { metadata } : {}),
        });
    }
    async triggerBulk(target, config, metadata, environment) {
        // The latest run of the tag, or of the first test id, is the run this request may have started.
        const key = target.tagId ?? target.testIds?.[0] ?? '';
        return this.#start(key, '/v1/tests/remote-run', {
            ...target,
            ...(config ? { config } : {}),
            ...(environment ? { environment } : {}),
            ...(metadata ? { metadata } : {}),
        });
    }
    /**
     * Each failure of an ended run, classed new, known, flaky or quarantined. One attempt:
     * a service without the endpoint, or any failure, leaves the results without triage.
     */
    async triage(runId) {
        const body = await this.#call('GET', `/v1/test-runs/${runId}/triage`, undefined, 'json', true, 1);
        return runTriageResponse.parse(body).data;
    }
    /**
     * A trigger POST is not idempotent: resending it after the service started a run (and a
     * proxy answered 504) starts nothing but a 429 cooldown and a 409, and leaves the first run
     * orphaned. So it is resent only when it provably did not arrive (connection refused, no
     * address) or, after an ambiguous failure (5xx, a socket error once sent), when
     * `GET /v1/test-runs/latest?testId=<test or tag>` shows no run created since it was sent;
     * a run that was is taken as the one it started.
     */
    async #start(key, path, body) {
        const maxAttempts = this.#options.maxAttempts ?? 5;
        const backoffMs = this.#options.backoffMs ?? 1000;
        for (let attempt = 1;; attempt++) {
            const sentAt = Date.now();
            try {
                return remoteRunResponse.parse(await this.#call('POST', path, body, 'json', false)).data;
            }
            catch (error) {
                if (!(error instanceof AmbiguousRequestError))
                    throw error;
                let started;
                try {
                    started = await this.latestRun(key);
                }
                catch (lookup) {
                    throw new ApiError(error.status, `${error.message}; a run may have started, and looking it up failed too (${lookup.message}): check the project's runs before triggering again`);
                }
                if (started && Date.parse(started.createdAt) >= sentAt - clockSkewMs) {
                    this.#options.log?.(`${error.message}; run ${started.id} (${started.status}) was created since: taking it as the run this request started`);
                    return { runId: started.id, status: started.status };
                }
                if (attempt >= maxAttempts)
                    throw error;
                const delay = backoffMs * 2 ** (attempt - 1);
                this.#options.log?.(`${error.message}; no run was started: triggering again in ${delay} ms`);
                await this.#sleep(delay);
            }
        }
    }
    async latestRun(testId) {
        const body = await this.#call('GET', `/v1/test-runs/latest?testId=${encodeURIComponent(testId)}`);
        return latestRunResponse.parse(body).data;
    }
    async getRun(runId) {
        return testRunDetailResponse.parse(await this.#call('GET', `/v1/test-runs/${runId}`)).data;
    }
    async artifacts(runId) {
        return runArtifactsResponse.parse(await this.#call('GET', `/v1/test-runs/${runId}/artifacts`)).data;
    }
    /** The tests a run was started with (also those it never reported on). */
    async runTests(runId) {
        return runTestsResponse.parse(await this.#call('GET', `/v1/test-runs/${runId}/tests`)).data;
    }
    async report(runId) {
        return (await this.#call('GET', `/v1/test-runs/${runId}/report`, undefined, 'text'));
    }
    async cancel(runId) {
        return cancelRunResponse.parse(await this.#call('POST', `/v1/test-runs/${runId}/cancel`, {})).data;
    }
    /** Active leaf tests under a directory or carrying a tag (all pages), for splitting big runs. */
    async activeLeafTests(filter) {
        const leaves = [];
        if (filter.directoryId) {
            const query = `testId=${encodeURIComponent(filter.directoryId)}`;
            const page = this.#parse(testListBriefResponse, await this.#call('GET', `/v1/tests?${query}`));
            for (const child of page.children) {
                if (child.directory)
                    leaves.push(...(await this.activeLeafTests({ directoryId: child.id })));
                else if (child.status === 'active')
                    leaves.push(child.id);
            }
            return leaves;
        }
        for (let pageIndex = 0;; pageIndex++) {
            const query = `tagIds=${encodeURIComponent(filter.tagId ?? '')}&status=active&limit=500&page=${pageIndex}`;
            const page = this.#parse(testListBriefResponse, await this.#call('GET', `/v1/tests?${query}`));
            for (const child of page.children)
                if (!child.directory)
                    leaves.push(child.id);
            if (!page.pagination.hasMore)
                return leaves;
        }
    }
    /** `POST /v1/tests` (multipart: `testData` JSON and `files` uploads); the new test's id. */
    async createTest(testData, files = []) {
        const body = await this.#call('POST', '/v1/tests', await testForm(testData, files));
        return this.#parse(dataOf(createdTest), body).data.id;
    }
    /** `PUT /v1/tests/:id` (multipart); a changed `editVersion` answers 409. */
    async updateTest(testId, testData, files = []) {
        await this.#call('PUT', `/v1/tests/${testId}`, await testForm(testData, files));
    }
    /** Fails unless the key may read tests of the project (one cheap list request). */
    async checkAccess() {
        await this.#call('GET', '/v1/tests?limit=1');
    }
    async getTest(testId) {
        return this.#parse(testDetailResponse, await this.#call('GET', `/v1/tests/${testId}`));
    }
    #parse(schema, body) {
        return schema.parse(body);
    }
    async #call(method, path, json, as = 'json', 
    /** False for trigger POSTs: see #start. */
    idempotent = true, attempts) {
        const { baseUrl, apiKey, projectId, branchId, log } = this.#options;
        const maxAttempts = attempts ?? this.#options.maxAttempts ?? 5;
        const backoffMs = this.#options.backoffMs ?? 1000;
        const headers = {
            'x-api-key': apiKey,
            'x-project-id': projectId,
            'user-agent': 'stepdeck-action',
            ...(branchId ? { 'x-branch-id': branchId } : {}),
            ...(json === undefined
                ? {}
                : { 'content-type': json instanceof Multipart ? json.contentType : 'application/json' }),
        };
        let failures = 0;
        let throttled = 0;
        for (;;) {
            this.requests++;
            let statusCode;
            let responseHeaders;
            let text;
            try {
                const response = await (0,undici/* request */.Em)(`${baseUrl}${path}`, {
                    method,
                    headers,
                    body: json === undefined ? undefined : json instanceof Multipart ? json.body : JSON.stringify(json),
                    headersTimeout: 30_000,
                    bodyTimeout: 60_000,
                });
                statusCode = response.statusCode;
                responseHeaders = response.headers;
                text = await response.body.text();
            }
            catch (error) {
                // Network errors: the cause is the socket's, never the request headers.
                failures++;
                const reason = error instanceof Error ? error.code || error.message : 'error';
                if (!idempotent && !notSentCodes.has(error.code ?? ''))
                    throw new AmbiguousRequestError(0, `${method} ${path} failed: ${reason}`);
                if (failures >= maxAttempts)
                    throw new ApiError(0, `${method} ${path} failed after ${failures} attempts: ${reason}`);
                const delay = backoffMs * 2 ** (failures - 1);
                log?.(`${method} ${path}: ${reason}, retrying in ${delay} ms`);
                await this.#sleep(delay);
                continue;
            }
            if (statusCode >= 200 && statusCode < 300) {
                if (as === 'text')
                    return text;
                try {
                    return JSON.parse(text);
                }
                catch {
                    throw new ApiError(statusCode, `${method} ${path}: the response is not JSON`);
                }
            }
            const message = serviceMessage(text).replaceAll(apiKey, '***');
            if (statusCode === 429) {
                throttled++;
                if (throttled > 20)
                    throw new ApiError(429, `${method} ${path}: still rate limited after 20 attempts`);
                const delay = retryAfterMs(responseHeaders['retry-after']);
                log?.(`${method} ${path}: rate limited (${message}), retrying in ${Math.round(delay / 1000)} s`);
                await this.#sleep(delay);
                continue;
            }
            if (statusCode >= 500) {
                if (!idempotent)
                    throw new AmbiguousRequestError(statusCode, `${method} ${path} failed with ${statusCode}: ${message}`);
                failures++;
                if (failures >= maxAttempts)
                    throw new ApiError(statusCode, `${method} ${path} failed with ${statusCode}: ${message}`);
                const delay = backoffMs * 2 ** (failures - 1);
                log?.(`${method} ${path}: ${statusCode} ${message}, retrying in ${delay} ms`);
                await this.#sleep(delay);
                continue;
            }
            throw new ApiError(statusCode, `${method} ${path} failed with ${statusCode}: ${message || '(no message)'}`);
        }
    }
}
/** A multipart body, encoded up front so that a retry sends the same bytes. */
class Multipart {
    body;
    contentType;
    constructor(body, contentType) {
        this.body = body;
        this.contentType = contentType;
    }
}
/** `testData` and `files` as multipart/form-data, encoded by the platform's own FormData. */
async function testForm(testData, files) {
    const form = new FormData();
    form.append('testData', JSON.stringify(testData));
    for (const file of files)
        form.append('files', new Blob([new Uint8Array(file.content)]), file.filename);
    const encoded = new Response(form);
    return new Multipart(Buffer.from(await encoded.arrayBuffer()), encoded.headers.get('content-type') ?? 'multipart/form-data');
}
function serviceMessage(text) {
    try {
        const body = JSON.parse(text);
        if (typeof body.message === 'string')
            return body.message;
        if (typeof body.error === 'string')
            return body.error;
    }
    catch { }
    return text.slice(0, 200);
}

;// CONCATENATED MODULE: ./src/triage.ts

/**
 * Each failed test of the results classed by the service (`GET /v1/test-runs/:runId/triage`):
 * new, known (failing the same way on the base branch), flaky or quarantined. A service
 * without triage, or a failing lookup, leaves the results as they were (one line logged).
 */
async function withTriage(client, results, log) {
    const runIds = [...new Set(results.tests.filter(isFailedTest).map((test) => test.runId))];
    if (runIds.length === 0)
        return results;
    const classes = new Map();
    try {
        for (const runId of runIds) {
            const triage = await client.triage(runId);
            for (const failure of triage.failures)
                classes.set(`${runId}/${failure.testId}`, {
                    triage: failure.triage,
                    reason: failure.quarantine?.reason ?? null,
                });
        }
    }
    catch (error) {
        log(`Failures not triaged (new, known, flaky, quarantined): ${error.message}`);
        return results;
    }
    return {
        ...results,
        tests: results.tests.map((test) => {
            const found = classes.get(`${test.runId}/${test.testId}`);
            return found && isFailedTest(test)
                ? { ...test, triage: found.triage, ...(found.reason ? { quarantineReason: found.reason } : {}) }
                : test;
        }),
    };
}
/** Failed tests whose test is in quarantine: reported, but not failing the step. */
const quarantinedFailures = (results) => results.tests.filter((test) => isFailedTest(test) && test.triage === 'quarantined');
/** Failed tests not known to fail elsewhere (without triage, every failure counts as new). */
const newFailures = (results) => results.tests.filter((test) => isFailedTest(test) && (test.triage === undefined || test.triage === 'new'));
/**
 * The outcome `fail-on` judges: a run failed only by quarantined tests counts as passed (the
 * run's own status, the report and the webhooks still say failed).
 */
function gatingStatus(results) {
    if (results.status !== 'failed')
        return results.status;
    const failed = results.tests.filter(isFailedTest);
    return failed.length > 0 && failed.every((test) => test.triage === 'quarantined') ? 'passed' : 'failed';
}
/** `Quarantined, not failing the step: checkout (payment sandbox down)`, or nothing. */
function quarantineLine(results) {
    const quarantined = quarantinedFailures(results);
    if (quarantined.length === 0)
        return undefined;
    const names = quarantined.map((test) => test.quarantineReason ? `${test.name} (${test.quarantineReason})` : test.name);
    return `Quarantined, not failing the step: ${names.join(', ')}`;
}

;// CONCATENATED MODULE: ./src/visual.ts
/** The console's review page of a run: baseline, actual and diff side by side, approve or reject. */
const visualReviewUrl = (runUrl) => `${runUrl}/visual`;
const visualChangesOf = (results) => results.visualChanges ?? [];
/**
 * `2 visual changes await review (1 changed, 1 new): <review page>` (a page per run), or
 * nothing when every screenshot matched its baseline.
 */
function visualChangesLine(results) {
    const changes = visualChangesOf(results);
    if (changes.length === 0)
        return undefined;
    const changed = changes.filter((change) => change.status === 'changed').length;
    const pages = results.runs
        .filter((run) => changes.some((change) => change.runId === run.runId))
        .map((run) => visualReviewUrl(run.url));
    const one = changes.length === 1;
    return (`${changes.length} visual ${one ? 'change awaits' : 'changes await'} review ` +
        `(${changed} changed, ${changes.length - changed} new): ${pages.join(', ')}`);
}
/** The step fails on visual changes only with `visual-changes: fail`, while any awaits review. */
const failsOnVisualChanges = (results, mode) => mode === 'fail' && visualChangesOf(results).length > 0;

;// CONCATENATED MODULE: ./src/outputs.ts


/** Every output of action.yml as strings (also the CLI's --json, parsed back). */
function outputsFor(sources) {
    const { results } = sources;
    const outputs = {
        'run-id': sources.runIds[0] ?? '',
        'run-ids': sources.runIds.join(','),
        'run-url': sources.runUrls[0] ?? '',
        status: results?.status ?? 'triggered',
    };
    if (results) {
        Object.assign(outputs, {
            passed: String(results.stats.passed),
            failed: String(results.stats.failed),
            skipped: String(results.stats.skipped),
            flaky: String(results.stats.flaky),
            total: String(results.stats.total),
            'carried-over': String(results.carriedOver ?? 0),
            'duration-ms': String(results.durationMs),
            'new-failures': String(newFailures(results).length),
            'visual-changes': String(visualChangesOf(results).length),
            results: JSON.stringify({
                status: results.status,
                stats: results.stats,
                durationMs: results.durationMs,
                runs: results.runs,
                // errorDetail (Playwright's raw text) stays in the JUnit file: outputs are size-limited.
                tests: results.tests.map(({ errorDetail: _detail, ...test }) => test),
            }),
        });
    }
    if (sources.reportPath)
        outputs['report-path'] = sources.reportPath;
    if (sources.junitPath)
        outputs['junit-path'] = sources.junitPath;
    if (sources.artifactsPath)
        outputs['artifacts-path'] = sources.artifactsPath;
    if (sources.uploaded?.id !== undefined)
        outputs['artifact-id'] = String(sources.uploaded.id);
    return outputs;
}

;// CONCATENATED MODULE: ./src/rerun.ts



/**
 * Re-run only what failed: every attempt uploads a small results artifact; attempt N > 1 reads
 * the newest earlier attempt's one and triggers only the tests that failed or did not finish.
 */
const resultsFileName = 'stepdeck-results.json';
/** Artifact names allow no `/ \ : < > | * ? "`; the comment key tells matrix entries apart. */
const resultsArtifactPrefix = (commentKey) => `stepdeck-results-${commentKey.replace(/[/\\:<>|*?"\s]+/g, '_')}-`;
const resultsArtifactName = (commentKey, attempt) => `${resultsArtifactPrefix(commentKey)}${attempt}`;
const runAttempt = (env) => {
    const attempt = Number.parseInt(env.GITHUB_RUN_ATTEMPT ?? '1', 10);
    return Number.isFinite(attempt) && attempt > 0 ? attempt : 1;
};
/** Writes this attempt's results (ran now and carried over) into `dir`; returns the file. */
function writeAttemptResults(dir, results, context) {
    const content = {
        version: 1,
        attempt: context.attempt,
        commentKey: context.commentKey,
        status: results.status,
        tests: results.tests.map((test) => ({
            testId: test.testId,
            name: test.name,
            status: test.status,
            flaky: test.flaky,
            durationMs: test.durationMs,
            attempt: test.carriedFromAttempt ?? context.attempt,
        })),
    };
    external_node_fs_default().mkdirSync(dir, { recursive: true });
    const file = external_node_path_default().join(dir, resultsFileName);
    external_node_fs_default().writeFileSync(file, JSON.stringify(content));
    return file;
}
/** Upper bound of the whole lookup: a re-run never waits longer than this before running everything. */
const lookupDeadlineMs = 60_000;
/** Rejects with `message` once `ms` have passed; the timer never keeps the process alive. */
function deadline(ms, message) {
    let timer;
    const promise = new Promise((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(message)), ms);
        timer.unref();
    });
    return { promise, clear: () => clearTimeout(timer) };
}
/** Why the artifact listing failed, in words that say what to change. */
function listingProblem(error) {
    const status = error.status;
    const message = error.message;
    if (status === 401 || status === 403 || status === 404)
        return `the github-token cannot list this workflow run's artifacts (${status} ${message}): give the job "permissions: actions: read", or set "rerun: all"`;
    return `could not list this workflow run's artifacts (${status ? `${status} ` : ''}${message})`;
}
/**
 * Finds the newest earlier attempt's results artifact of this workflow run (listed and
 * downloaded through the GitHub API with the token: needs `actions: read`).
 *
 * Bounded: the listing is one request per page, never retried (@actions/artifact's own listing
 * retries 5xx five times with growing pauses, close to a minute), each request and the whole
 * lookup are cut at `deadlineMs`, and every failure becomes a reason to run everything.
 */
async function findPreviousResults(options) {
    const { env } = options;
    const attempt = runAttempt(env);
    if (attempt <= 1)
        return { found: undefined, reason: 'first attempt' };
    const [owner, repo] = (env.GITHUB_REPOSITORY ?? '').split('/');
    const workflowRunId = Number(env.GITHUB_RUN_ID);
    if (!options.token || !owner || !repo || !Number.isInteger(workflowRunId))
        return { found: undefined, reason: 'no github-token or no repository/run id in the environment' };
    const deadlineMs = options.deadlineMs ?? lookupDeadlineMs;
    const overall = deadline(deadlineMs, `the lookup of the earlier attempt's results took longer than ${Math.round(deadlineMs / 1000)} s`);
    try {
        return await Promise.race([
            lookup({
                ...options,
                token: options.token,
                apiUrl: env.GITHUB_API_URL,
                owner,
                repo,
                workflowRunId,
                attempt,
                deadlineMs,
            }),
            overall.promise,
        ]);
    }
    catch (error) {
        return { found: undefined, reason: error.message, problem: true };
    }
    finally {
        overall.clear();
    }
}
async function lookup(options) {
    const { owner, repo, workflowRunId, attempt } = options;
    const { getOctokit } = await __webpack_require__.e(/* import() */ 351).then(__webpack_require__.bind(__webpack_require__, 61351));
    // No retry plugin here (getOctokit adds none): a 403 answers at once, a 5xx is reported.
    const octokit = getOctokit(options.token, {
        ...(options.apiUrl ? { baseUrl: options.apiUrl } : {}),
        request: { signal: AbortSignal.timeout(options.deadlineMs) },
    });
    let artifacts;
    try {
        artifacts = await octokit.paginate(octokit.rest.actions.listWorkflowRunArtifacts, {
            owner,
            repo,
            run_id: workflowRunId,
            per_page: 100,
        });
    }
    catch (error) {
        return { found: undefined, reason: listingProblem(error), problem: true };
    }
    const prefix = resultsArtifactPrefix(options.commentKey);
    const earlier = artifacts
        .filter((artifact) => artifact.name.startsWith(prefix))
        .map((artifact) => ({ ...artifact, attempt: Number(artifact.name.slice(prefix.length)) }))
        .filter((artifact) => Number.isInteger(artifact.attempt) && artifact.attempt < attempt)
        .sort((a, b) => b.attempt - a.attempt);
    const newest = earlier[0];
    if (!newest)
        return { found: undefined, reason: 'no results of an earlier attempt were found' };
    try {
        external_node_fs_default().mkdirSync(options.dir, { recursive: true });
        const { DefaultArtifactClient } = await Promise.all(/* import() */[__webpack_require__.e(351), __webpack_require__.e(220)]).then(__webpack_require__.bind(__webpack_require__, 67220));
        const findBy = { token: options.token, workflowRunId, repositoryOwner: owner, repositoryName: repo };
        await new DefaultArtifactClient().downloadArtifact(newest.id, { path: options.dir, findBy });
        const parsed = JSON.parse(external_node_fs_default().readFileSync(external_node_path_default().join(options.dir, resultsFileName), 'utf8'));
        if (parsed.version !== 1 || !Array.isArray(parsed.tests))
            return {
                found: undefined,
                reason: `the results of attempt ${newest.attempt} are unreadable`,
                problem: true,
            };
        return { found: parsed };
    }
    catch (error) {
        return {
            found: undefined,
            reason: `could not read the results of attempt ${newest.attempt} (${error.message})`,
            problem: true,
        };
    }
}
/**
 * Only what failed or did not finish runs again. Undefined (run everything) when the earlier
 * attempt recorded no test at all, or nothing failed in it (a "re-run all jobs").
 */
function planRerun(previous) {
    if (previous.tests.length === 0)
        return {
            plan: undefined,
            reason: `attempt ${previous.attempt} recorded no test results (${previous.status})`,
        };
    const again = previous.tests.filter((test) => isFailedTest(test));
    if (again.length === 0)
        return { plan: undefined, reason: `nothing failed in attempt ${previous.attempt}` };
    return {
        plan: {
            testIds: [...new Set(again.map((test) => test.testId))],
            carried: previous.tests.filter((test) => !isFailedTest(test)),
        },
    };
}
/** Adds the carried-over tests to this attempt's results (counts included). */
function withCarriedOver(results, carried) {
    if (carried.length === 0)
        return results;
    const tests = carried.map((test) => ({
        runId: '',
        testId: test.testId,
        name: test.name,
        status: test.status,
        durationMs: test.durationMs,
        errorMessage: null,
        errorLocation: null,
        failedStep: null,
        expected: null,
        received: null,
        errorDetail: null,
        flaky: test.flaky,
        carriedFromAttempt: test.attempt,
    }));
    const stats = { ...results.stats };
    for (const test of carried) {
        stats.total += 1;
        if (test.status === 'skipped')
            stats.skipped += 1;
        else
            stats.passed += 1;
        if (test.flaky)
            stats.flaky += 1;
    }
    return { ...results, stats, tests: [...results.tests, ...tests], carriedOver: carried.length };
}

// EXTERNAL MODULE: external "node:crypto"
var external_node_crypto_ = __webpack_require__(77598);
;// CONCATENATED MODULE: ./src/report/failure.ts

/**
 * A failed test in the user's words, for every surface (summary, comment, annotations, JUnit,
 * CLI): which step failed and why. Uses the service's step-level fields when it sends them and
 * degrades to errorMessage/errorLocation when it does not (older services).
 */
/** Cuts `text` to `max` characters, saying how much was cut. */
function cut(text, max) {
    if (text.length <= max)
        return text;
    const marker = `… [cut: ${text.length - max} more characters]`;
    return `${text.slice(0, Math.max(0, max - marker.length))}${marker}`;
}
/** One line: whitespace runs (newlines included) become one space. */
const oneLine = (text) => text.replace(/\s+/g, ' ').trim();
/** A location that names a generated spec file, which the user never saw. */
const generatedFile = /\.(spec|test)\.[cm]?[jt]s(:\d+)*$/;
/** `Checkout › Pay` (`assertText #out`), or the service's errorLocation when it is a step path. */
function failingStep(test) {
    if (test.failedStep) {
        const path = test.failedStep.path.length > 0 ? test.failedStep.path : [test.failedStep.name];
        return { path: path.join(' › '), action: test.failedStep.action };
    }
    if (test.errorLocation && !generatedFile.test(test.errorLocation))
        return { path: test.errorLocation, action: null };
    return null;
}
const failingStepText = (test) => {
    const step = failingStep(test);
    return step ? `${step.path}${step.action ? ` (${step.action})` : ''}` : '';
};
/**
 * Expected and received values: the service's fields, else the `Expected…:`/`Received…:` lines
 * of a Playwright assertion message.
 */
function expectation(test) {
    if (test.expected != null)
        return { expected: test.expected, received: test.received ?? null };
    const message = test.errorMessage ?? '';
    const expected = message.match(/^\s*Expected(?: [\w ]+)?: (.+)$/m)?.[1];
    if (!expected)
        return null;
    const received = message.match(/^\s*Received(?: [\w ]+)?: (.+)$/m)?.[1];
    return { expected: expected.trim(), received: received?.trim() ?? null };
}
/** `no element for getByRole('button', { name: 'Save' }); closest now: getByRole(…)`. */
function locatorHintText(hint) {
    const head = hint.problem === 'many' ? `several elements match ${hint.from}` : `no element for ${hint.from}`;
    return hint.closest ? `${head}; closest now: ${hint.closest}` : `${head}; nothing similar on the page now`;
}
/** `passed (healed: step 2 used getByRole('button', { name: 'Save changes' }))`; null when not healed. */
function healedText(test) {
    if (!test.healed?.length || isFailedTest(test))
        return null;
    const used = test.healed.map((step) => `step ${step.step} used ${step.locator}`).join(', ');
    return `${test.status} (healed: ${used})`;
}
/**
 * The one-line reason: the failing locator and the closest element now, else
 * `expected "Bye Ada", received "Hello Ada"`, else the message's first line.
 */
function reason(test, max = 160) {
    if (test.locatorHint)
        return cut(oneLine(locatorHintText(test.locatorHint)), max);
    const values = expectation(test);
    if (values)
        return cut(oneLine(`expected ${cut(values.expected, 70)}${values.received !== null ? `, received ${cut(values.received, 70)}` : ''}`), max);
    const first = (test.errorMessage ?? '')
        .split('\n')
        .map((line) => line.trim())
        .find(Boolean);
    if (first)
        return cut(oneLine(first.replace(/^Error:\s*/, '')), max);
    return isFlaky(test) ? 'passed on a retry' : test.status;
}
const isFlaky = (test) => test.flaky || test.status === 'flaky';
/** `test › step path`: the title of a failure everywhere. */
function failureTitle(test) {
    const step = failingStep(test);
    return step ? `${test.name} › ${step.path}` : test.name;
}
/**
 * The full user-facing text of a failure: the service's message, preceded by the failing step
 * and the expectation when the message does not already say them.
 */
function fullMessage(test) {
    const message = test.errorMessage ?? '';
    const lines = [];
    const step = failingStep(test);
    if (step && !message.includes(step.path))
        lines.push(`Step: ${step.path}${step.action ? ` (${step.action})` : ''}`);
    if (test.expected != null && !/^\s*Expected\b/m.test(message)) {
        lines.push(`Expected: ${test.expected}`);
        if (test.received != null)
            lines.push(`Received: ${test.received}`);
    }
    if (message)
        lines.push(...(lines.length > 0 ? [''] : []), message);
    if (lines.length === 0)
        lines.push(`Test ${test.status}`);
    return lines.join('\n');
}

;// CONCATENATED MODULE: ./src/report/markdown.ts



const icons = {
    passed: '✅',
    failed: '❌',
    error: '💥',
    cancelled: '🚫',
    timeout: '⏱️',
};
const formatDuration = (ms) => {
    if (ms < 1000)
        return `${ms} ms`;
    const seconds = ms / 1000;
    if (seconds < 60)
        return `${seconds.toFixed(1)} s`;
    return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
};
/**
 * Text in a GitHub-markdown table cell, shown as written: one line, markdown and HTML
 * punctuation backslash-escaped (so `<br>` or `**` in a message stays visible text, never
 * markup, and never an entity such as `&lt;` shown literally), `|` escaped so the row keeps
 * its columns.
 */
const cell = (value) => value
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\\`*_[\]<>|~!#]/g, (char) => `\\${char}`)
    .replace(/&/g, '&amp;');
/** Text inside an HTML element (the `<summary>` of a `<details>` block). */
const html = (value) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\s+/g, ' ').trim();
/** A fenced code block that no backtick run inside `text` can close. */
function fenced(text) {
    const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
    const fence = '`'.repeat(longest + 1);
    return `${fence}text\n${text.replace(/\r\n?/g, '\n')}\n${fence}`;
}
/** A comment's budget: 65536 characters less the hidden marker and a margin. */
const commentMaxChars = 65_000;
/** A summary's budget: 1 MiB, counted in characters of up to 4 bytes each, less a margin. */
const summaryMaxChars = 250_000;
const tableHead = ['| Test | Status | Failing step | Reason | Duration | Run |', '|---|---|---|---|---|---|'];
/** A failure as the service classes it against history (src/triage.ts), in the reader's words. */
const triageText = {
    new: '🆕 new',
    known: 'known: failing on the base branch too',
    flaky: 'flaky in recent runs',
    quarantined: '🔒 quarantined: does not fail the check',
};
function row(test, runUrl) {
    const failed = isFailedTest(test);
    const flaky = isFlakyTest(test);
    const status = failed
        ? `❌ ${cell(test.status)}`
        : flaky
            ? '⚠️ flaky'
            : test.status === 'skipped'
                ? '⏭️ skipped'
                : // Healed is never shown as a plain pass: the step passed only with another locator.
                    `✅ ${cell(healedText(test) ?? test.status)}`;
    const carried = (test.carriedFromAttempt ? ` (attempt ${test.carriedFromAttempt}, carried over)` : '') +
        (failed && test.triage ? ` · ${triageText[test.triage]}` : '');
    const step = failed ? failingStepText(test) : '';
    const why = failed || flaky ? reason(test) : '';
    return `| ${cell(test.name)} | ${status}${carried} | ${cell(step)} | ${cell(why)} | ${formatDuration(test.durationMs)} | ${runUrl ? `[run](${runUrl})` : ''} |`;
}
function details(test, maxChars) {
    return [
        '<details>',
        `<summary>❌ ${html(failureTitle(test))}</summary>`,
        '',
        fenced(cut(fullMessage(test), maxChars)),
        '',
        '</details>',
    ].join('\n');
}
/**
 * The job summary and PR comment: status, counts, links, a short table (failed first, then
 * flaky, then the rest) and each failure's full message in a collapsible block, within a size
 * budget (failed rows first, then their details, then the other rows).
 */
function resultsMarkdown(results, context = {}) {
    const { stats } = results;
    const maxChars = context.maxChars ?? commentMaxChars;
    const head = [
        `### ${icons[results.status] ?? ''} ${context.title ?? 'Stepdeck'}: ${results.status}`,
        '',
        `**${stats.passed}** passed · **${stats.failed}** failed · **${stats.skipped}** skipped · ` +
            (stats.flaky > 0 ? `**${stats.flaky}** flaky · ` : '') +
            `**${stats.total}** total · ${formatDuration(results.durationMs)}` +
            (results.carriedOver ? ` · **${results.carriedOver}** carried over from an earlier attempt` : ''),
        ...(results.note ? ['', `**${cell(results.note.replace(/^./, (c) => c.toUpperCase()))}.**`] : []),
        ...triageLine(results),
        ...visualLines(results, maxChars),
        '',
        results.runs.map((run) => `[run ${run.runId.slice(0, 8)}](${run.url}) (${run.status})`).join(' · ') +
            (context.artifactUrl ? ` · [artifacts](${context.artifactUrl})` : ''),
    ];
    for (const run of results.runs)
        if (run.runnerError)
            head.push('', `> Runner error in run ${run.runId.slice(0, 8)}: ${cell(cut(run.runnerError, 2000))}`);
    const urls = new Map(results.runs.map((run) => [run.runId, run.url]));
    const failed = results.tests.filter(isFailedTest);
    const others = results.tests.filter((test) => !isFailedTest(test));
    // Room left once the head, the table's head and the omission lines are written.
    let room = maxChars - head.join('\n').length - tableHead.join('\n').length - 400;
    const take = (text) => {
        if (text.length + 1 > room)
            return false;
        room -= text.length + 1;
        return true;
    };
    const failedRows = [];
    for (const test of failed) {
        const line = row(test, urls.get(test.runId));
        if (!take(line))
            break;
        failedRows.push(line);
    }
    const blocks = [];
    for (const test of failed.slice(0, failedRows.length)) {
        const block = details(test, context.maxDetailChars ?? 4000);
        if (!take(`\n${block}`))
            break;
        blocks.push(block);
    }
    const otherRows = [];
    for (const test of others) {
        const line = row(test, undefined);
        if (!take(line))
            break;
        otherRows.push(line);
    }
    const lines = [...head];
    if (results.tests.length > 0)
        lines.push('', ...tableHead, ...failedRows, ...otherRows);
    const leftOut = results.tests.length - failedRows.length - otherRows.length;
    if (leftOut > 0)
        lines.push('', `…and ${leftOut} more tests (${failed.length - failedRows.length} of them failed), left out to stay within GitHub's size limit: see the run page.`);
    for (const block of blocks)
        lines.push('', block);
    if (blocks.length < failedRows.length)
        lines.push('', `…the full messages of ${failedRows.length - blocks.length} more failed tests are on the run page.`);
    return `${lines.join('\n')}\n`;
}
/** "2 new failures · 1 known · 1 quarantined", when the service classed the failures. */
function triageLine(results) {
    const counts = new Map();
    for (const test of results.tests)
        if (isFailedTest(test) && test.triage)
            counts.set(test.triage, (counts.get(test.triage) ?? 0) + 1);
    if (counts.size === 0)
        return [];
    const parts = ['new', 'known', 'flaky', 'quarantined']
        .filter((triage) => counts.has(triage))
        .map((triage) => {
        const n = counts.get(triage) ?? 0;
        return triage === 'new' ? `**${n}** new ${n === 1 ? 'failure' : 'failures'}` : `**${n}** ${triage}`;
    });
    return ['', `Failures against history: ${parts.join(' · ')}`];
}
/** Visual changes listed in the summary at most; the review page has them all. */
const visualListMax = 10;
/** Share of the size budget the thumbnails may take (presigned URLs run to ~1500 characters). */
const thumbnailShare = 0.25;
/** Text in a double-quoted HTML attribute: one line, markup characters as entities. */
const attribute = (value) => value
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
/**
 * The change's picture (its diff, or the new screenshot) as a thumbnail linking to its run's
 * review page. The service presigns the picture's URL, since GitHub's image proxy sends no
 * API key.
 */
function thumbnail(change, reviewUrl) {
    const alt = `${cut(change.testName, 200)}: ${change.status === 'new' ? 'new screenshot' : 'diff'}`;
    return `<a href="${attribute(reviewUrl)}"><img src="${attribute(change.imageUrl ?? '')}" width="320" alt="${attribute(alt)}"></a>`;
}
/**
 * When the run found any: "🖼️ 2 visual changes await review (1 changed, 1 new) · review run
 * 1a2b3c4d", then one line per change (test, changed or new, the differing share), with its
 * thumbnail under it when the service gave the picture's URL.
 */
function visualLines(results, maxChars) {
    const changes = visualChangesOf(results);
    if (changes.length === 0)
        return [];
    const changed = changes.filter((change) => change.status === 'changed').length;
    const reviewUrls = new Map(results.runs.map((run) => [run.runId, visualReviewUrl(run.url)]));
    const links = results.runs
        .filter((run) => changes.some((change) => change.runId === run.runId))
        .map((run) => `[review run ${run.runId.slice(0, 8)}](${visualReviewUrl(run.url)})`);
    let room = Math.floor(maxChars * thumbnailShare);
    let thumbnailsLeftOut = 0;
    const list = changes.slice(0, visualListMax).map((change) => {
        const what = change.status === 'new'
            ? 'new screenshot, no baseline yet'
            : `changed: ${(change.ratio * 100).toFixed(2)} % of pixels differ`;
        const line = `- ${cell(change.testName)}: ${what}`;
        const reviewUrl = reviewUrls.get(change.runId);
        if (!change.imageUrl || !reviewUrl)
            return line;
        // A continuation line of the item: the picture under its text.
        const picture = `  <br>${thumbnail(change, reviewUrl)}`;
        if (picture.length + 1 > room) {
            thumbnailsLeftOut += 1;
            return line;
        }
        room -= picture.length + 1;
        return `${line}\n${picture}`;
    });
    if (changes.length > visualListMax)
        list.push(`- …and ${changes.length - visualListMax} more on the review page`);
    if (thumbnailsLeftOut > 0)
        list.push('', `…${thumbnailsLeftOut} more ${thumbnailsLeftOut === 1 ? 'thumbnail' : 'thumbnails'} left out to stay within GitHub's size limit: see the review page.`);
    return [
        '',
        `🖼️ **${changes.length}** visual ${changes.length === 1 ? 'change awaits' : 'changes await'} review ` +
            `(${changed} changed, ${changes.length - changed} new) · ${links.join(' · ')}`,
        '',
        ...list,
    ];
}

;// CONCATENATED MODULE: ./src/report/aggregate.ts



/** The shared part of a comment key: up to its last `/` (the key itself without one). */
const aggregateGroup = (key) => (key.includes('/') ? key.slice(0, key.lastIndexOf('/')) : key);
const safe = (text) => text.replace(/--+>?/g, '-');
const aggregateMarker = (group) => `<!-- stepdeck-aggregate: ${safe(group)} -->`;
const statePattern = /<!-- stepdeck-aggregate-state: ([A-Za-z0-9_-]+) -->/;
function aggregateRow(results, context) {
    const failed = results.tests.filter(isFailedTest).map((test) => test.name);
    return {
        key: context.key,
        status: results.status,
        ...results.stats,
        durationMs: results.durationMs,
        runUrl: context.runUrl,
        attempt: context.attempt,
        failedTests: failed.slice(0, 5),
    };
}
function parseAggregateState(body) {
    const match = body?.match(statePattern);
    if (!match)
        return undefined;
    try {
        const state = JSON.parse(Buffer.from(match[1], 'base64url').toString('utf8'));
        return state.version === 1 && typeof state.rows === 'object' ? state : undefined;
    }
    catch {
        return undefined;
    }
}
const aggregate_icons = {
    passed: '✅',
    failed: '❌',
    error: '💥',
    cancelled: '🚫',
    timeout: '⏱️',
};
const worstFirst = ['error', 'timeout', 'failed', 'cancelled', 'passed'];
/** The comment: overall status and counts, one row per job (sorted by key), the hidden state. */
function aggregateMarkdown(state) {
    const rows = Object.values(state.rows).sort((a, b) => a.key.localeCompare(b.key));
    const status = worstFirst.find((outcome) => rows.some((row) => row.status === outcome)) ?? 'passed';
    const sum = (field) => rows.reduce((total, row) => total + row[field], 0);
    const prefix = `${state.group}/`;
    const lines = [
        aggregateMarker(state.group),
        `### ${aggregate_icons[status] ?? ''} Stepdeck ${state.group}: ${status} (${rows.length} ${rows.length === 1 ? 'job' : 'jobs'})`,
        '',
        `**${sum('passed')}** passed · **${sum('failed')}** failed · **${sum('skipped')}** skipped · ` +
            (sum('flaky') > 0 ? `**${sum('flaky')}** flaky · ` : '') +
            `**${sum('total')}** total`,
        '',
        '| Job | Status | Passed | Failed | Flaky | Skipped | Duration | Failed tests | Run |',
        '|---|---|---|---|---|---|---|---|---|',
        ...rows.map((row) => {
            const label = row.key.startsWith(prefix) ? row.key.slice(prefix.length) : row.key;
            const more = row.failed > row.failedTests.length ? ` and ${row.failed - row.failedTests.length} more` : '';
            const attempt = row.attempt > 1 ? ` (attempt ${row.attempt})` : '';
            return `| ${cell(label)} | ${aggregate_icons[row.status] ?? ''} ${cell(row.status)}${attempt} | ${row.passed} | ${row.failed} | ${row.flaky} | ${row.skipped} | ${formatDuration(row.durationMs)} | ${cell(row.failedTests.join(', ') + more)} | [run](${row.runUrl}) |`;
        }),
        '',
        `<!-- stepdeck-aggregate-state: ${Buffer.from(JSON.stringify(state)).toString('base64url')} -->`,
    ];
    return `${lines.join('\n')}\n`;
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * Adds (or replaces) this job's row in the group's comment, creating it when absent.
 * `settleMs`: the pause before checking that the write held (plus up to as much again at random,
 * so that writers who collided do not collide again).
 */
async function upsertAggregateRow(options) {
    const { getOctokit } = await __webpack_require__.e(/* import() */ 351).then(__webpack_require__.bind(__webpack_require__, 61351));
    const octokit = getOctokit(options.token);
    const { owner, repo, number } = options.pr;
    const marker = aggregateMarker(options.group);
    const settleMs = options.settleMs ?? 2000;
    const maxTries = options.maxTries ?? 8;
    const own = { ...options.row, nonce: (0,external_node_crypto_.randomUUID)(), writtenAt: Date.now() };
    /** Every row of this workflow run seen so far: written back if a stale write dropped it. */
    const seen = new Map();
    /** The group's comments (oldest first) and their rows merged; `newer` when a later run owns it. */
    const read = async () => {
        const all = await octokit.paginate(octokit.rest.issues.listComments, {
            owner,
            repo,
            issue_number: number,
            per_page: 100,
        });
        const mine = all.filter((comment) => comment.body?.includes(marker)).sort((a, b) => a.id - b.id);
        let newer = false;
        for (const comment of mine) {
            const state = parseAggregateState(comment.body);
            if (!state)
                continue;
            if (state.workflowRunId > options.workflowRunId)
                newer = true;
            if (state.workflowRunId !== options.workflowRunId)
                continue;
            for (const row of Object.values(state.rows)) {
                const known = seen.get(row.key);
                if (!known || row.writtenAt > known.writtenAt)
                    seen.set(row.key, row);
            }
        }
        return { comments: mine, newer };
    };
    const holds = (body) => {
        const state = parseAggregateState(body);
        if (!state || state.workflowRunId !== options.workflowRunId)
            return false;
        if (state.rows[own.key]?.nonce !== own.nonce)
            return false;
        return [...seen.keys()].every((key) => key in state.rows);
    };
    try {
        let current = await read();
        for (let attempt = 1; attempt <= maxTries; attempt++) {
            if (current.newer)
                return { kind: 'skipped', reason: 'a later workflow run already owns the aggregate comment' };
            // Our own row wins over any copy of it; the others are the newest seen.
            seen.set(own.key, own);
            const state = {
                version: 1,
                group: options.group,
                workflowRunId: options.workflowRunId,
                rows: Object.fromEntries(seen),
            };
            const body = aggregateMarkdown(state);
            const [canonical, ...duplicates] = current.comments;
            try {
                if (canonical)
                    await octokit.rest.issues.updateComment({ owner, repo, comment_id: canonical.id, body });
                else
                    await octokit.rest.issues.createComment({ owner, repo, issue_number: number, body });
            }
            catch (error) {
                // Deleted as a duplicate by another job meanwhile: read again and write to the survivor.
                if (!canonical || error.status !== 404)
                    throw error;
                current = await read();
                continue;
            }
            // Comments created at the same moment: their rows are in ours now.
            for (const duplicate of duplicates)
                await octokit.rest.issues
                    .deleteComment({ owner, repo, comment_id: duplicate.id })
                    .catch((error) => {
                    if (error.status !== 404)
                        throw error;
                });
            await sleep(settleMs + Math.random() * settleMs);
            current = await read();
            const [first, ...others] = current.comments;
            if (first && others.length === 0 && holds(first.body))
                return { kind: canonical ? 'updated' : 'created', id: first.id, url: first.html_url };
            if (current.newer)
                return { kind: 'skipped', reason: 'a later workflow run already owns the aggregate comment' };
            options.log?.(`Aggregate comment: another job wrote at the same time (try ${attempt} of ${maxTries}), writing again`);
        }
        throw new Error(`the aggregate comment did not hold this job's row after ${maxTries} tries`);
    }
    catch (error) {
        const status = error.status;
        if (status === 403 || status === 404 || (options.pr.fork && status !== undefined && status < 500))
            return {
                kind: 'fallback',
                reason: `the token cannot comment on this pull request (${status}${options.pr.fork ? ', fork PR' : ''})`,
            };
        throw error;
    }
}

;// CONCATENATED MODULE: ./src/report/annotations.ts


const maxAnnotations = 50;
/**
 * One error annotation per failed test (at most 50): title = test › failing step, message =
 * the expectation (expected vs received) then the full message. Placed at the error location
 * only when an older service reports one as file:line[:col].
 */
function annotationsFor(results) {
    return results.tests
        .filter(isFailedTest)
        .slice(0, maxAnnotations)
        .map((test) => {
        const step = failingStep(test);
        const lines = expectation(test) ? [reason(test, 400), fullMessage(test)] : [fullMessage(test)];
        const annotation = {
            title: step ? failureTitle(test) : `Stepdeck: ${test.name} ${test.status}`,
            message: cut([...lines, !step && test.errorLocation ? `at ${test.errorLocation}` : '']
                .filter(Boolean)
                .join('\n'), 4000),
        };
        const match = step ? null : test.errorLocation?.match(/^(.+?):(\d+)(?::(\d+))?$/);
        if (match?.[1] && !/\s/.test(match[1])) {
            annotation.file = match[1];
            annotation.startLine = Number(match[2]);
            if (match[3])
                annotation.startColumn = Number(match[3]);
        }
        return annotation;
    });
}

;// CONCATENATED MODULE: ./src/report/comment.ts

/** The pull request of a pull_request(_target) event, read from GITHUB_EVENT_PATH; undefined otherwise. */
function pullRequestFromEnv(env = process.env) {
    const eventName = env.GITHUB_EVENT_NAME ?? '';
    if (!eventName.startsWith('pull_request') || !env.GITHUB_EVENT_PATH || !env.GITHUB_REPOSITORY)
        return undefined;
    let event;
    try {
        event = JSON.parse(external_node_fs_default().readFileSync(env.GITHUB_EVENT_PATH, 'utf8'));
    }
    catch {
        return undefined;
    }
    const pr = event.pull_request;
    if (!pr)
        return undefined;
    const [owner, repo] = env.GITHUB_REPOSITORY.split('/');
    const head = pr.head?.repo?.full_name;
    const base = pr.base?.repo?.full_name;
    return { owner, repo, number: pr.number, fork: Boolean(head && base && head !== base) };
}
const commentMarker = (key) => `<!-- stepdeck-comment: ${key.replace(/--+>?/g, '-')} -->`;
/**
 * Posts the results on the PR: `update` edits the comment carrying this key's hidden marker
 * (found through every page of comments) or creates it; `new` always creates one. When the
 * token cannot write (a fork PR), returns a fallback instead of failing.
 */
async function upsertComment(options) {
    const { getOctokit } = await __webpack_require__.e(/* import() */ 351).then(__webpack_require__.bind(__webpack_require__, 61351));
    const octokit = getOctokit(options.token);
    const { owner, repo, number } = options.pr;
    const marker = commentMarker(options.key);
    const body = `${marker}\n${options.markdown}`;
    try {
        if (options.mode === 'update') {
            const comments = await octokit.paginate(octokit.rest.issues.listComments, {
                owner,
                repo,
                issue_number: number,
                per_page: 100,
            });
            const existing = comments.find((comment) => comment.body?.includes(marker));
            if (existing) {
                const { data } = await octokit.rest.issues.updateComment({
                    owner,
                    repo,
                    comment_id: existing.id,
                    body,
                });
                return { kind: 'updated', id: data.id, url: data.html_url };
            }
        }
        const { data } = await octokit.rest.issues.createComment({ owner, repo, issue_number: number, body });
        return { kind: 'created', id: data.id, url: data.html_url };
    }
    catch (error) {
        const status = error.status;
        if (status === 403 || status === 404 || (options.pr.fork && status !== undefined && status < 500))
            return {
                kind: 'fallback',
                reason: `the token cannot comment on this pull request (${status}${options.pr.fork ? ', fork PR' : ''})`,
            };
        throw error;
    }
}

;// CONCATENATED MODULE: ./src/report/junit.ts


const xml = (value) => value
    .split('')
    .filter((char) => char >= ' ' || char === '\n' || char === '\r' || char === '\t')
    .join('')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
/** JUnit XML of the results, one testsuite per run, for test-report actions. */
function junitXml(results) {
    const seconds = (ms) => (ms / 1000).toFixed(3);
    const suites = results.runs.map((run) => {
        const tests = results.tests.filter((test) => test.runId === run.runId);
        const failures = tests.filter(isFailedTest).length;
        const skipped = tests.filter((test) => test.status === 'skipped').length;
        const cases = tests.map((test) => {
            const open = `    <testcase classname="stepdeck" name="${xml(test.name)}" time="${seconds(test.durationMs)}"`;
            if (test.status === 'skipped')
                return `${open}>\n      <skipped/>\n    </testcase>`;
            if (isFlakyTest(test))
                return `${open}>\n      <system-out>${xml(`flaky: passed on a retry. ${reason(test)}`)}</system-out>\n    </testcase>`;
            if (!isFailedTest(test))
                return `${open}/>`;
            // The attribute is the short reason (one line, what CI report viewers list); the body
            // holds the full user-facing message, then Playwright's own text when the service sent it.
            const message = `${failureTitle(test)}: ${reason(test)}`;
            const body = [
                fullMessage(test),
                test.errorDetail ? `\n--- Playwright output ---\n${cut(test.errorDetail, 20_000)}` : '',
            ]
                .filter(Boolean)
                .join('\n');
            return `${open}>\n      <failure message="${xml(message)}" type="${xml(test.status)}">${xml(body)}</failure>\n    </testcase>`;
        });
        const time = seconds(tests.reduce((sum, test) => sum + test.durationMs, 0));
        return [
            `  <testsuite name="stepdeck run ${xml(run.runId)}" tests="${tests.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${time}">`,
            ...cases,
            '  </testsuite>',
        ].join('\n');
    });
    const failures = results.tests.filter(isFailedTest).length;
    const skipped = results.tests.filter((test) => test.status === 'skipped').length;
    return [
        '<?xml version="1.0" encoding="UTF-8"?>',
        `<testsuites name="stepdeck" tests="${results.tests.length}" failures="${failures}" skipped="${skipped}" time="${seconds(results.durationMs)}">`,
        ...suites,
        '</testsuites>',
        '',
    ].join('\n');
}

;// CONCATENATED MODULE: ./src/report/index.ts









/** Writes the job summary, unless `$GITHUB_STEP_SUMMARY` is absent (local runs, other CIs). */
async function writeJobSummary(markdown, env = process.env) {
    if (!env.GITHUB_STEP_SUMMARY) {
        core/* info */.pq('No $GITHUB_STEP_SUMMARY: skipping the job summary');
        return false;
    }
    await core/* summary */.z.addRaw(markdown).write();
    return true;
}
function writeJunit(results, dir) {
    const file = external_node_path_default().join(dir, 'junit.xml');
    external_node_fs_default().mkdirSync(dir, { recursive: true });
    external_node_fs_default().writeFileSync(file, junitXml(results));
    return file;
}
/** Job summary, annotations and PR comment: every report made from one markdown document. */
async function report(results, inputs, links, env = process.env) {
    const context = { artifactUrl: links.artifactUrl, title: `Stepdeck ${inputs.commentKey}` };
    // Same content, two budgets: 1 MiB per job summary, 65536 characters per comment.
    const markdown = resultsMarkdown(results, { ...context, maxChars: commentMaxChars });
    if (inputs.summary)
        await writeJobSummary(resultsMarkdown(results, { ...context, maxChars: summaryMaxChars }), env);
    if (inputs.annotations)
        for (const { message, ...properties } of annotationsFor(results))
            core/* error */.z3(message, properties);
    if (inputs.prComment === 'off')
        return;
    const pr = pullRequestFromEnv(env);
    if (!pr)
        return;
    if (!inputs.githubToken) {
        core/* warning */.$e('No github-token: skipping the PR comment');
        return;
    }
    try {
        const result = inputs.commentMode === 'aggregate'
            ? await upsertAggregateRow({
                token: inputs.githubToken,
                pr,
                group: aggregateGroup(inputs.commentKey),
                workflowRunId: Number(env.GITHUB_RUN_ID) || 0,
                row: aggregateRow(results, {
                    key: inputs.commentKey,
                    runUrl: results.runs[0]?.url ?? '',
                    attempt: runAttempt(env),
                }),
                log: core/* info */.pq,
            })
            : await upsertComment({
                token: inputs.githubToken,
                pr,
                key: inputs.commentKey,
                markdown,
                mode: inputs.prComment,
            });
        if (result.kind === 'fallback')
            core/* warning */.$e(`Could not comment: ${result.reason}. The results:\n${markdown}`);
        else if (result.kind === 'skipped')
            core/* info */.pq(`PR comment not written: ${result.reason}`);
        else
            core/* info */.pq(`PR comment ${result.kind}: ${result.url}`);
    }
    catch (error) {
        core/* warning */.$e(`Could not comment on the pull request: ${error.message}`);
    }
}

;// CONCATENATED MODULE: ./src/report/status.ts


/** The commit a status belongs on: the PR head for pull_request events, else GITHUB_SHA. */
function statusTarget(env = process.env) {
    const [owner, repo] = (env.GITHUB_REPOSITORY ?? '').split('/');
    if (!owner || !repo)
        return undefined;
    let sha = env.GITHUB_SHA;
    if ((env.GITHUB_EVENT_NAME ?? '').startsWith('pull_request') && env.GITHUB_EVENT_PATH)
        try {
            const event = JSON.parse(external_node_fs_default().readFileSync(env.GITHUB_EVENT_PATH, 'utf8'));
            sha = event.pull_request?.head?.sha ?? sha;
        }
        catch { }
    return sha ? { owner, repo, sha } : undefined;
}
const stateOf = (status) => status === 'passed' ? 'success' : status === 'failed' ? 'failure' : 'error';
/** One line of counts, at most 140 characters (GitHub's limit for a status description). */
function statusDescription(results) {
    const { stats } = results;
    const parts = [
        stats.failed > 0 && `${stats.failed} failed`,
        `${stats.passed} passed`,
        stats.flaky > 0 && `${stats.flaky} flaky`,
        stats.skipped > 0 && `${stats.skipped} skipped`,
    ].filter(Boolean);
    const text = `${results.status}: ${parts.join(', ')} of ${stats.total} in ${formatDuration(results.durationMs)}`;
    return text.length <= 140 ? text : `${text.slice(0, 139)}…`;
}
/**
 * Sets a commit status (context `stepdeck/<comment key>`) whose Details link is the run page.
 * A token without `statuses: write` gives a warning, not a failure. GHES: GITHUB_API_URL.
 */
async function setCommitStatus(options) {
    const { getOctokit } = await __webpack_require__.e(/* import() */ 351).then(__webpack_require__.bind(__webpack_require__, 61351));
    try {
        await getOctokit(options.token).rest.repos.createCommitStatus({
            ...options.target,
            state: options.state,
            context: `stepdeck/${options.context}`.slice(0, 255),
            description: options.description.slice(0, 140),
            target_url: options.targetUrl,
        });
        return true;
    }
    catch (error) {
        const status = error.status;
        if (status === 403 || status === 404 || status === 401 || status === 422) {
            options.warn(`Could not set the commit status (${status}): the token needs the statuses: write permission`);
            return false;
        }
        throw error;
    }
}

;// CONCATENATED MODULE: ./src/trigger.ts

/** The spec's cap of active tests per remote run. */
const maxTestsPerRun = 100;
const overCap = (error) => error instanceof ApiError && error.status === 400 && /\b100\b/.test(error.message);
function chunk(items, size) {
    const chunks = [];
    for (let i = 0; i < items.length; i += size)
        chunks.push(items.slice(i, i + size));
    return chunks;
}
/**
 * Starts the run(s): one test → its own endpoint (409 attaches to the active run); several
 * ids or a tag → the bulk endpoint, split into runs of at most 100 tests when the selection
 * expands beyond the cap.
 */
async function trigger(client, target, log) {
    const triggered = await startRuns(client, target, log);
    // Said out loud: a directory or tag run takes active tests only.
    for (const run of triggered.runs) {
        const leftOut = run.leftOut ?? [];
        if (leftOut.length > 0)
            log(leftOutLine(run.runId, leftOut));
    }
    return triggered;
}
/**
 * "Run 1a2b3c4d left out 2 tests that are not active: Login (draft), Old flow (archived)";
 * a test left out for its browser says so: "Checkout (firefox not installed)".
 */
function leftOutLine(runId, leftOut) {
    const why = (test) => test.reason === 'browser not installed' ? `${test.browser ?? 'browser'} not installed` : test.status;
    const named = leftOut.map((test) => `${test.name} (${why(test)})`).join(', ');
    const count = `${leftOut.length} test${leftOut.length === 1 ? '' : 's'}`;
    if (leftOut.some((test) => test.reason === 'browser not installed'))
        return `Run ${runId.slice(0, 8)} left out ${count}: ${named}. Mark a test active in the console to include it; install a browser with npx playwright install <browser> where the service runs.`;
    return `Run ${runId.slice(0, 8)} left out ${count} that ${leftOut.length === 1 ? 'is' : 'are'} not active: ${named}. Mark a test active in the console to include it.`;
}
async function startRuns(client, target, log) {
    const { testIds, tagId, config, metadata, environment } = target;
    if (tagId) {
        try {
            return { runs: [await client.triggerBulk({ tagId }, config, metadata, environment)], attached: false };
        }
        catch (error) {
            if (!overCap(error))
                throw error;
        }
        const leaves = await client.activeLeafTests({ tagId });
        log(`The tag selects ${leaves.length} active tests, more than ${maxTestsPerRun}: splitting into several runs`);
        return { runs: await triggerChunks(client, leaves, config, log, metadata, environment), attached: false };
    }
    if (testIds.length === 1) {
        const testId = testIds[0];
        try {
            return { runs: [await client.triggerTest(testId, config, metadata, environment)], attached: false };
        }
        catch (error) {
            if (!(error instanceof ApiError && error.status === 409))
                throw error;
            const active = await client.latestRun(testId);
            if (!active)
                throw error;
            log(`Test ${testId} already has an active run: attaching to run ${active.id} instead of starting one`);
            return { runs: [{ runId: active.id, status: active.status }], attached: true };
        }
    }
    const runs = [];
    const parts = chunk(testIds, maxTestsPerRun);
    if (parts.length > 1)
        log(`${testIds.length} test ids, more than ${maxTestsPerRun} per run: splitting into ${parts.length} runs`);
    for (const part of parts) {
        try {
            runs.push(await client.triggerBulk({ testIds: part }, config, metadata, environment));
            continue;
        }
        catch (error) {
            if (!overCap(error))
                throw error;
        }
        // Directories expand beyond the cap: trigger their active leaves in runs of at most 100.
        const leaves = [];
        for (const id of part) {
            const below = await client.activeLeafTests({ directoryId: id });
            leaves.push(...(below.length > 0 ? below : [id]));
        }
        const unique = [...new Set(leaves)];
        log(`The selection expands to ${unique.length} tests, more than ${maxTestsPerRun}: splitting into several runs`);
        runs.push(...(await triggerChunks(client, unique, config, log, metadata, environment)));
    }
    return { runs, attached: false };
}
async function triggerChunks(client, ids, config, log, metadata, environment) {
    const runs = [];
    const parts = chunk(ids, maxTestsPerRun);
    for (const [index, part] of parts.entries()) {
        const run = await client.triggerBulk({ testIds: part }, config, metadata, environment);
        log(`Run ${index + 1}/${parts.length}: ${run.runId} (${part.length} tests)`);
        runs.push(run);
    }
    return runs;
}

;// CONCATENATED MODULE: ./src/wait.ts

const isTerminal = (status) => terminalRunStatuses.includes(status);
const wait_sleepReal = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * Polls every unfinished run once per interval (one GET per run and poll) until all are
 * terminal or the wall-clock deadline passes; at the deadline the unfinished runs are cancelled.
 */
async function waitForRuns(client, runIds, options) {
    const now = options.now ?? Date.now;
    const sleep = options.sleep ?? wait_sleepReal;
    const deadline = now() + options.timeoutMs;
    const latest = new Map();
    for (;;) {
        for (const runId of runIds) {
            const known = latest.get(runId);
            if (known && isTerminal(known.status))
                continue;
            latest.set(runId, await client.getRun(runId));
        }
        const runs = runIds.map((id) => latest.get(id));
        options.onPoll?.(runs);
        if (runs.every((run) => isTerminal(run.status)))
            return { runs, timedOut: false };
        const left = deadline - now();
        if (left <= 0)
            break;
        await sleep(Math.min(options.pollIntervalMs, left));
    }
    const unfinished = runIds.filter((id) => !isTerminal(latest.get(id)?.status ?? 'pending'));
    const tests = new Map();
    for (const runId of unfinished) {
        try {
            const result = await client.cancel(runId);
            options.log?.(`Deadline reached: cancelled run ${runId} (${result.message})`);
        }
        catch (error) {
            // 400: it ended meanwhile; the refresh below reads its real state.
            options.log?.(`Deadline reached: could not cancel run ${runId}: ${error.message}`);
        }
        latest.set(runId, await client.getRun(runId));
        try {
            tests.set(runId, await client.runTests(runId));
        }
        catch (error) {
            tests.set(runId, []);
            options.log?.(`Could not list the tests of run ${runId}: ${error.message}`);
        }
    }
    return { runs: runIds.map((id) => latest.get(id)), timedOut: true, unfinished: tests };
}

;// CONCATENATED MODULE: ./src/action.ts














/** What the main step saves for the post step: the runs it started, and whether it saw them end. */
const state = { runIds: 'run-ids', done: 'done' };
const clientFor = (inputs) => new StepdeckClient({
    baseUrl: inputs.baseUrl,
    apiKey: inputs.apiKey,
    projectId: inputs.projectId,
    branchId: inputs.branchId,
    log: core/* info */.pq,
});
/** The action once its inputs are valid: trigger → wait → collect → report → outputs. */
async function execute(inputs, env = process.env) {
    const { apiKey } = inputs;
    try {
        const client = clientFor(inputs);
        const rerun = await rerunPlan(inputs, env);
        const triggered = await trigger(client, rerun
            ? {
                testIds: rerun.testIds,
                tagId: undefined,
                config: inputs.config,
                metadata: inputs.metadata,
                environment: inputs.environment,
            }
            : inputs, core/* info */.pq);
        const runIds = triggered.runs.map((run) => run.runId);
        const runUrls = runIds.map((id) => runUrl(inputs.baseUrl, inputs.projectId, id));
        core/* saveState */.LZ(state.runIds, runIds.join(','));
        core/* info */.pq(`Started ${runIds.length === 1 ? 'run' : 'runs'} ${runUrls.join(', ')}`);
        await commitStatus(inputs, env, 'pending', 'Stepdeck run started', runUrls[0]);
        if (!inputs.wait) {
            core/* saveState */.LZ(state.done, 'true');
            setOutputs(outputsFor({ runIds, runUrls }));
            return;
        }
        let lastLine = '';
        const waited = await waitForRuns(client, runIds, {
            timeoutMs: inputs.timeoutMs,
            pollIntervalMs: inputs.pollIntervalMs,
            log: core/* info */.pq,
            onPoll: (runs) => {
                const line = runs.map((run) => `${run.id.slice(0, 8)} ${run.status}`).join(', ');
                if (line !== lastLine)
                    core/* info */.pq(line);
                lastLine = line;
            },
        });
        core/* saveState */.LZ(state.done, 'true');
        const results = withCarriedOver(await withTriage(client, mergeRuns(waited.runs, { ...inputs, timedOut: waited.timedOut, unfinished: waited.unfinished }), core/* warning */.$e), rerun?.carried ?? []);
        const name = inputs.artifactName ?? defaultArtifactName(runIds[0] ?? 'run', env);
        const dir = external_node_path_default().join(env.RUNNER_TEMP || external_node_os_default().tmpdir(), 'stepdeck', name);
        const collected = await collectArtifacts(client, waited.runs, results, {
            dir,
            mode: inputs.artifacts,
            log: core/* warning */.$e,
            debug: core/* debug */.Yz,
        });
        const junitPath = writeJunit(results, dir);
        const uploaded = inputs.artifacts === 'none'
            ? undefined
            : await uploadArtifact(collected, { name, retentionDays: inputs.artifactRetentionDays, env });
        if (inputs.artifacts !== 'none' && !uploaded)
            core/* info */.pq(`Artifacts kept in ${dir}`);
        await uploadAttemptResults(results, inputs, env);
        await report(results, inputs, { artifactUrl: uploaded?.url }, env);
        await commitStatus(inputs, env, stateOf(results.status), statusDescription(results), runUrls[0]);
        setOutputs(outputsFor({
            runIds,
            runUrls,
            results,
            reportPath: collected.reportPath,
            junitPath,
            artifactsPath: dir,
            uploaded,
        }));
        const quarantined = quarantineLine(results);
        if (quarantined)
            core/* notice */.lm(quarantined);
        const visual = visualChangesLine(results);
        if (visual && failsOnVisualChanges(results, inputs.visualChanges))
            core/* setFailed */.C1(`Stepdeck: ${visual} (visual-changes: fail)`);
        else if (visual && inputs.visualChanges === 'warn')
            core/* warning */.$e(visual);
        if (failsStep(gatingStatus(results), inputs.failOn)) {
            const failed = results.tests
                .filter((test) => test.status === 'failed' && test.triage !== 'quarantined')
                .map((test) => test.name);
            const stopped = results.tests.filter((test) => test.status === unfinishedStatus).length;
            core/* setFailed */.C1(`Stepdeck run ${results.status}` +
                (results.note ? `: ${results.note}` : '') +
                (stopped > 0 ? ` (${stopped} ${stopped === 1 ? 'test' : 'tests'} not finished)` : '') +
                (failed.length > 0 ? `: ${failed.slice(0, 10).join(', ')}` : ''));
        }
    }
    catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        core/* setFailed */.C1(message.replaceAll(apiKey, '***'));
    }
}
/** What to trigger on a re-run attempt with `rerun: failed`; undefined runs the whole selection. */
async function rerunPlan(inputs, env) {
    const attempt = runAttempt(env);
    if (inputs.rerun === 'all' || attempt <= 1)
        return undefined;
    const lookup = await findPreviousResults({
        token: inputs.githubToken,
        commentKey: inputs.commentKey,
        env,
        dir: external_node_path_default().join(env.RUNNER_TEMP || external_node_os_default().tmpdir(), 'stepdeck', `previous-${attempt}`),
    });
    if (!lookup.found) {
        // A problem (no `actions: read`, GitHub failing) is worth a warning; nothing to find is not.
        (lookup.problem ? core/* warning */.$e : core/* info */.pq)(`Attempt ${attempt}, rerun: failed: running every test, ${lookup.reason}`);
        return undefined;
    }
    const planned = planRerun(lookup.found);
    if (!planned.plan) {
        core/* info */.pq(`Attempt ${attempt}, rerun: failed: running every test, ${planned.reason}`);
        return undefined;
    }
    core/* info */.pq(`Attempt ${attempt}, rerun: failed: running ${planned.plan.testIds.length} test(s) that failed or did not finish in attempt ${lookup.found.attempt}; ${planned.plan.carried.length} earlier pass(es) carried over`);
    return planned.plan;
}
/** This attempt's results as a small artifact of its own, for the next attempt to read. */
async function uploadAttemptResults(results, inputs, env) {
    if (!env.ACTIONS_RUNTIME_TOKEN || !env.ACTIONS_RESULTS_URL)
        return;
    const attempt = runAttempt(env);
    const dir = external_node_path_default().join(env.RUNNER_TEMP || external_node_os_default().tmpdir(), 'stepdeck', `results-${attempt}`);
    const file = writeAttemptResults(dir, results, { attempt, commentKey: inputs.commentKey });
    try {
        await uploadArtifact({ dir, files: [file], reportPath: undefined }, {
            name: resultsArtifactName(inputs.commentKey, attempt),
            retentionDays: inputs.artifactRetentionDays,
            env,
        });
    }
    catch (error) {
        core/* warning */.$e(`Could not upload the results for a later re-run: ${error.message}`);
    }
}
/** The commit status when `commit-status: true`; never fails the step. */
async function commitStatus(inputs, env, state, description, targetUrl) {
    if (!inputs.commitStatus || !targetUrl)
        return;
    const target = statusTarget(env);
    if (!inputs.githubToken || !target) {
        core/* warning */.$e('commit-status: no github-token or no repository/commit in the environment, skipped');
        return;
    }
    try {
        await setCommitStatus({
            token: inputs.githubToken,
            target,
            context: inputs.commentKey,
            state,
            description,
            targetUrl,
            warn: core/* warning */.$e,
        });
    }
    catch (error) {
        core/* warning */.$e(`Could not set the commit status: ${error.message}`);
    }
}
function setOutputs(outputs) {
    for (const [name, value] of Object.entries(outputs))
        core/* setOutput */.uH(name, value);
}
/** Unique per run: the job, the (first) service run id and the attempt. */
function defaultArtifactName(runId, env = process.env) {
    return `stepdeck-${env.GITHUB_JOB || 'run'}-${runId.slice(0, 8)}-${env.GITHUB_RUN_ATTEMPT || '1'}`;
}


/***/ })

};
