export const id = 109;
export const ids = [109];
export const modules = {

/***/ 17079:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Py: () => (/* binding */ queryInteger),
/* harmony export */   X$: () => (/* binding */ pagination),
/* harmony export */   em: () => (/* binding */ runStatus),
/* harmony export */   h5: () => (/* binding */ testStatus),
/* harmony export */   o$: () => (/* binding */ jsonObject),
/* harmony export */   qu: () => (/* binding */ dataOf),
/* harmony export */   s$: () => (/* binding */ terminalRunStatuses),
/* harmony export */   uR: () => (/* binding */ uuid),
/* harmony export */   yh: () => (/* binding */ isoTimestamp)
/* harmony export */ });
/* unused harmony exports errorBody, rateLimitBody, noPayloadResponse */
/* harmony import */ var zod__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(92857);
/* harmony import */ var zod__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(49567);

/**
 * Every error: the spec's `message`, and a stable `code` (e.g. `TEST_NOT_FOUND`) for programs
 * to branch on; messages may be reworded, codes are never renamed. Some errors add fields.
 */
const errorBody = zod__WEBPACK_IMPORTED_MODULE_0__/* .object */ .Ikc({
    message: zod__WEBPACK_IMPORTED_MODULE_0__/* .string */ .YjP(),
    code: zod__WEBPACK_IMPORTED_MODULE_0__/* .string */ .YjP().describe('Stable error code, e.g. `TEST_NOT_FOUND`: branch on this, not on `message`.'),
});
/** The rate limiter's 429 (the spec's body), with its code. */
const rateLimitBody = zod__WEBPACK_IMPORTED_MODULE_0__/* .object */ .Ikc({
    error: zod__WEBPACK_IMPORTED_MODULE_0__/* .literal */ .euz('Too many requests'),
    code: zod__WEBPACK_IMPORTED_MODULE_0__/* .literal */ .euz('RATE_LIMITED'),
});
const pagination = zod__WEBPACK_IMPORTED_MODULE_0__/* .object */ .Ikc({
    page: zod__WEBPACK_IMPORTED_MODULE_0__/* .number */ .aig().int(),
    limit: zod__WEBPACK_IMPORTED_MODULE_0__/* .number */ .aig().int(),
    total: zod__WEBPACK_IMPORTED_MODULE_0__/* .number */ .aig().int(),
    totalPages: zod__WEBPACK_IMPORTED_MODULE_0__/* .number */ .aig().int(),
    hasMore: zod__WEBPACK_IMPORTED_MODULE_0__/* .boolean */ .zMY(),
});
/** A JSON object of the user's own (configuration, variables, custom data): an open map. */
const jsonObject = zod__WEBPACK_IMPORTED_MODULE_0__/* .record */ .g1P(zod__WEBPACK_IMPORTED_MODULE_0__/* .string */ .YjP(), zod__WEBPACK_IMPORTED_MODULE_0__/* .unknown */ .L5J());
/** `{ data: T }`, the wrapper of almost every response. */
const dataOf = (payload) => zod__WEBPACK_IMPORTED_MODULE_0__/* .object */ .Ikc({ data: payload });
const uuid = zod__WEBPACK_IMPORTED_MODULE_0__/* .uuid */ .uRe({ error: 'must be a UUID' });
/**
 * A whole-number query parameter (`limit`, `page`) whose every failure states the rule, e.g.
 * "limit must be a whole number from 1 to 500" for `limit=0`, `limit=abc` or `limit=1.5`.
 */
const queryInteger = (name, min, max) => {
    const message = `${name} must be a whole number ${max === undefined ? `${min} or more` : `from ${min} to ${max}`}`;
    const atLeast = zod__WEBPACK_IMPORTED_MODULE_1__/* .number */ .ai({ error: message }).int(message).min(min, message);
    return max === undefined ? atLeast : atLeast.max(max, message);
};
const isoTimestamp = zod__WEBPACK_IMPORTED_MODULE_0__/* .string */ .YjP();
const runStatus = zod__WEBPACK_IMPORTED_MODULE_0__/* ["enum"] */ .k5n(['pending', 'queued', 'running', 'completed', 'failed', 'cancelled']);
const terminalRunStatuses = ['completed', 'failed', 'cancelled'];
const testStatus = zod__WEBPACK_IMPORTED_MODULE_0__/* ["enum"] */ .k5n(['draft', 'active', 'archived']);
/** `{ data: null }`: an operation with no payload. */
const noPayloadResponse = zod__WEBPACK_IMPORTED_MODULE_0__/* .object */ .Ikc({ data: zod__WEBPACK_IMPORTED_MODULE_0__/* ["null"] */ .chJ() });


/***/ }),

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

/***/ 55109:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  main: () => (/* binding */ main)
});

// EXTERNAL MODULE: external "node:util"
var external_node_util_ = __webpack_require__(57975);
;// CONCATENATED MODULE: ./src/inputs.ts
/** Outcomes of a whole action run; `fail-on` picks which of them fail the step. */
const outcomes = (/* unused pure expression or super */ null && (['passed', 'failed', 'cancelled', 'timeout', 'error']));
const failableOutcomes = ['failed', 'cancelled', 'timeout', 'error'];
/** `Input "name" problem`: the action's wording (the CLI words it with flags: src/cli-args.ts). */
const actionWording = ({ input, problem }) => `Input "${input}" ${problem}`;
class InputError extends Error {
    name = 'InputError';
    problems;
    constructor(problems) {
        super(problems.map(actionWording).join('; '));
        this.problems = problems;
    }
}
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
function fail(input, problem, mentions) {
    throw new InputError([{ input, problem, ...(mentions ? { mentions } : {}) }]);
}
function inputs_text(raw, name) {
    const value = raw[name]?.trim();
    return value ? value : undefined;
}
function required(raw, name) {
    return inputs_text(raw, name) ?? fail(name, 'is required');
}
function bool(raw, name, fallback) {
    const value = inputs_text(raw, name)?.toLowerCase();
    if (value === undefined)
        return fallback;
    if (value === 'true')
        return true;
    if (value === 'false')
        return false;
    return fail(name, `must be true or false, got "${value}"`);
}
function number(raw, name, fallback, min, max) {
    const value = inputs_text(raw, name);
    if (value === undefined)
        return fallback;
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || !/^\d+(\.\d+)?$/.test(value))
        fail(name, `must be a number, got "${value}"`);
    if (parsed < min || parsed > max)
        fail(name, `must be between ${min} and ${max}, got ${value}`);
    return parsed;
}
function choice(raw, name, allowed, fallback) {
    const value = inputs_text(raw, name)?.toLowerCase();
    if (value === undefined)
        return fallback;
    if (!allowed.includes(value))
        fail(name, `must be one of ${allowed.join(', ')}, got "${value}"`);
    return value;
}
function isHttpUrl(value) {
    try {
        const url = new URL(value);
        return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
    }
    catch {
        return false;
    }
}
function uuid(name, value) {
    if (!uuidPattern.test(value))
        fail(name, `must contain UUIDs, got "${value}"`);
    return value.toLowerCase();
}
/** Splits a newline- or comma-separated list, dropping blanks. */
function splitList(value) {
    return (value ?? '')
        .split(/[\n,]/)
        .map((item) => item.trim())
        .filter(Boolean);
}
async function parseConfig(raw, problems) {
    const json = inputs_text(raw, 'config');
    let config;
    if (json !== undefined)
        try {
            config = await parseConfigJson(json);
        }
        catch (error) {
            if (!(error instanceof InputError))
                throw error;
            problems.push(...error.problems);
        }
    const targetUrl = inputs_text(raw, 'target-url');
    if (targetUrl !== undefined) {
        if (isHttpUrl(targetUrl))
            config = { ...config, use: { ...config?.use, baseURL: targetUrl } };
        else
            problems.push({ input: 'target-url', problem: `must be an http(s) URL, got "${targetUrl}"` });
    }
    const browser = inputs_text(raw, 'browser');
    if (browser !== undefined) {
        const browsers = ['chromium', 'firefox', 'webkit'];
        const browserName = browser.toLowerCase();
        if (browsers.includes(browserName))
            config = { ...config, use: { ...config?.use, browserName } };
        else
            problems.push({
                input: 'browser',
                problem: `must be one of ${browsers.join(', ')}, got "${browserName}"`,
            });
    }
    return config;
}
async function parseConfigJson(json) {
    let value;
    try {
        value = JSON.parse(json);
    }
    catch {
        fail('config', 'must be a JSON object (it is not valid JSON)');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
        fail('config', 'must be a JSON object');
    const { runConfig } = await __webpack_require__.e(/* import() */ 508).then(__webpack_require__.bind(__webpack_require__, 57508));
    const parsed = runConfig.safeParse(value);
    if (!parsed.success)
        fail('config', `is not a valid run config: ${parsed.error.issues
            .map((issue) => `${['config', ...issue.path.map(String)].join('.')}: ${issue.message}`)
            .join('; ')}`);
    return parsed.data;
}
function parseFailOn(raw) {
    const items = splitList(inputs_text(raw, 'fail-on')?.toLowerCase());
    if (items.length === 0)
        return [...failableOutcomes];
    if (items.length === 1 && items[0] === 'none')
        return [];
    for (const item of items)
        if (!failableOutcomes.includes(item))
            fail('fail-on', `must list outcomes among ${failableOutcomes.join(', ')} (or be "none"), got "${item}"`);
    return [...new Set(items)];
}
/**
 * Parses and validates every input. Every problem is found in one pass: the InputError lists
 * them all (`Input "wait" must be…; Input "config" is not a valid run config: config.retries: …`),
 * so fixing three mistakes takes one run, not three.
 */
async function parseInputs(raw, defaults = {}) {
    const problems = [];
    /** The value, or undefined with the problem recorded. */
    const check = (parse) => {
        try {
            return parse();
        }
        catch (error) {
            if (!(error instanceof InputError))
                throw error;
            problems.push(...error.problems);
            return undefined;
        }
    };
    const apiKey = check(() => required(raw, 'api-key'));
    const baseUrl = check(() => {
        const baseUrlText = required(raw, 'base-url');
        let url;
        try {
            url = new URL(baseUrlText);
        }
        catch {
            fail('base-url', `must be a URL, got "${baseUrlText}"`);
        }
        if (url.protocol !== 'http:' && url.protocol !== 'https:')
            fail('base-url', `must be an http(s) URL, got "${baseUrlText}"`);
        return url.toString().replace(/\/+$/, '');
    });
    const projectId = check(() => uuid('project-id', required(raw, 'project-id')));
    const branchText = inputs_text(raw, 'branch-id');
    const branchId = check(() => (branchText ? uuid('branch-id', branchText) : undefined));
    const testIdTexts = splitList(inputs_text(raw, 'test-ids'));
    const testIds = [
        ...new Set(testIdTexts.map((id) => check(() => uuid('test-ids', id))).filter((id) => id !== undefined)),
    ];
    const tagText = inputs_text(raw, 'tag-id');
    check(() => {
        if (testIdTexts.length > 0 && tagText)
            fail('test-ids', 'and "tag-id" are exclusive: set exactly one of them', ['tag-id']);
        if (testIdTexts.length === 0 && !tagText)
            fail('test-ids', 'or "tag-id" is required: set exactly one of them', ['tag-id']);
    });
    const tagId = check(() => (tagText ? uuid('tag-id', tagText) : undefined));
    const config = await parseConfig(raw, problems);
    const environment = inputs_text(raw, 'environment');
    check(() => {
        if (environment !== undefined && !/^[a-z0-9][a-z0-9_-]{0,31}$/.test(environment))
            fail('environment', `must be an environment name (1 to 32 lowercase letters, digits, "-" or "_"), got "${environment}"`);
    });
    const browser = config?.use?.browserName;
    const retention = inputs_text(raw, 'artifact-retention-days');
    const artifactName = inputs_text(raw, 'artifact-name');
    check(() => {
        if (artifactName && /[":<>|*?\\/\r\n]/.test(artifactName))
            fail('artifact-name', `must not contain any of " : < > | * ? \\ / or newlines, got "${artifactName}"`);
    });
    const inputs = {
        apiKey,
        baseUrl,
        projectId,
        branchId,
        testIds,
        tagId,
        config,
        environment,
        wait: check(() => bool(raw, 'wait', true)),
        timeoutMs: check(() => Math.round(number(raw, 'timeout-minutes', 30, 1, 360) * 60_000)),
        pollIntervalMs: check(() => Math.round(number(raw, 'poll-interval-seconds', 5, 1, 300) * 1000)),
        failOn: check(() => parseFailOn(raw)),
        artifacts: check(() => choice(raw, 'artifacts', ['all', 'failed', 'none'], 'all')),
        artifactName,
        artifactRetentionDays: check(() => retention === undefined ? undefined : number(raw, 'artifact-retention-days', 0, 1, 90)),
        summary: check(() => bool(raw, 'summary', true)),
        prComment: check(() => choice(raw, 'pr-comment', ['update', 'new', 'off'], 'update')),
        commentMode: check(() => {
            const mode = choice(raw, 'comment-mode', ['per-job', 'aggregate'], 'per-job');
            if (mode === 'aggregate' && inputs_text(raw, 'pr-comment')?.toLowerCase() === 'new')
                fail('comment-mode', 'aggregate keeps one comment up to date: it needs "pr-comment" update, not new', ['pr-comment']);
            return mode;
        }),
        commentKey: inputs_text(raw, 'comment-key') ??
            [defaults.workflow ?? 'stepdeck', defaults.job ?? 'run', browser].filter(Boolean).join('/'),
        githubToken: inputs_text(raw, 'github-token'),
        annotations: check(() => bool(raw, 'annotations', true)),
        commitStatus: check(() => bool(raw, 'commit-status', false)),
        rerun: check(() => choice(raw, 'rerun', ['failed', 'all'], 'failed')),
        visualChanges: check(() => choice(raw, 'visual-changes', ['warn', 'fail', 'ignore'], 'warn')),
        metadata: check(() => {
            const label = inputs_text(raw, 'label');
            if (label && label.length > 200)
                fail('label', `must be at most 200 characters, got ${label.length}`);
            const metadata = { ...defaults.source, ...(label ? { label } : {}) };
            return Object.keys(metadata).length > 0 ? metadata : undefined;
        }),
    };
    if (problems.length > 0)
        throw new InputError(problems);
    // No problem recorded: every checked value is set.
    return inputs;
}
/** Every input name, as in action.yml. */
const inputNames = [
    'api-key',
    'base-url',
    'project-id',
    'branch-id',
    'test-ids',
    'tag-id',
    'config',
    'target-url',
    'browser',
    'environment',
    'wait',
    'timeout-minutes',
    'poll-interval-seconds',
    'fail-on',
    'artifacts',
    'artifact-name',
    'artifact-retention-days',
    'summary',
    'pr-comment',
    'comment-key',
    'comment-mode',
    'rerun',
    'github-token',
    'annotations',
    'commit-status',
    'label',
    'visual-changes',
];

;// CONCATENATED MODULE: ./src/cli-args.ts


/** The variable an option reads: `--artifacts-dir` → `STEPDECK_ARTIFACTS_DIR`. */
const variableOf = (name) => `STEPDECK_${name.toUpperCase().replace(/-/g, '_')}`;
/** `--api-key / STEPDECK_API_KEY`: how a CLI user sets an input (the action says `Input "api-key"`). */
const flagAndVariable = (name) => `--${name} / ${variableOf(name)}`;
/** An input problem in CLI words: `--api-key / STEPDECK_API_KEY is required`. */
function cliWording({ input, problem, mentions = [] }) {
    let text = problem;
    for (const other of mentions)
        text = text.replaceAll(`"${other}"`, flagAndVariable(other));
    return `${flagAndVariable(input)} ${text}`;
}
/** Options of the CLI only (not action inputs); each reads its variable too. */
const cliOptions = {
    json: { type: 'boolean' },
    'artifacts-dir': { type: 'string' },
};
/** Flags, then `STEPDECK_<NAME>` for every option without its flag: the flag wins. */
function readArgs(argv, env) {
    const inputs = Object.fromEntries(inputNames.map((name) => [name, { type: 'string' }]));
    const { values, positionals } = (0,external_node_util_.parseArgs)({
        args: argv,
        allowPositionals: true,
        options: {
            ...inputs,
            ...cliOptions,
            wait: { type: 'boolean' },
            'no-wait': { type: 'boolean' },
            help: { type: 'boolean', short: 'h' },
        },
    });
    const raw = {};
    for (const name of inputNames) {
        const flag = values[name];
        raw[name] = typeof flag === 'string' ? flag : env[variableOf(name)];
    }
    if (values.wait)
        raw.wait = 'true';
    if (values['no-wait'])
        raw.wait = 'false';
    const problems = [];
    let json = values.json === true;
    if (values.json === undefined) {
        const text = env[variableOf('json')]?.trim().toLowerCase();
        if (text === 'true')
            json = true;
        else if (text && text !== 'false')
            problems.push(`${flagAndVariable('json')} must be true or false, got "${text}"`);
    }
    const dir = values['artifacts-dir'];
    return {
        command: positionals[0],
        help: values.help === true,
        raw,
        json,
        artifactsDir: (typeof dir === 'string' ? dir : env[variableOf('artifacts-dir')]?.trim()) || 'stepdeck-artifacts',
        problems,
    };
}
/** Whether errors should be a JSON document, before (or without) a successful parse. */
const wantsJson = (argv, env) => argv.includes('--json') || env[variableOf('json')]?.trim().toLowerCase() === 'true';

// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(73024);
var external_node_fs_default = /*#__PURE__*/__webpack_require__.n(external_node_fs_);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(76760);
var external_node_path_default = /*#__PURE__*/__webpack_require__.n(external_node_path_);
// EXTERNAL MODULE: ./node_modules/zod/v4/classic/schemas.js + 11 modules
var schemas = __webpack_require__(92857);
;// CONCATENATED MODULE: ./contract/src/network-steps.ts

/**
 * Fields of the network mock and response steps (`mockRoute`, `waitForResponse`), TOTP codes
 * (`totp`) and accessibility checks (`assertAccessible`); `step-actions.ts` puts them in the
 * vocabulary. Their meaning is in docs/runner.md.
 */
/** A URL pattern is a regular expression when written `/source/flags`, else a Playwright glob. */
const REGEX_PATTERN = /^\/(.+)\/([dgimsuvy]*)$/s;
/** The regular expression a `/…/flags` pattern stands for, or null for a glob. Throws when invalid. */
function urlPatternRegex(pattern) {
    const match = REGEX_PATTERN.exec(pattern);
    if (!match?.[1])
        return null;
    return new RegExp(match[1], match[2]);
}
const urlPattern = schemas/* string */.YjP({ error: 'url is required and must be a URL glob or a /regular expression/' })
    .min(1, 'url must not be empty')
    .superRefine((url, ctx) => {
    // Checked again at run time once a `{{…}}` template is resolved.
    if (url.includes('{{'))
        return;
    try {
        urlPatternRegex(url);
    }
    catch (error) {
        ctx.addIssue({
            code: 'custom',
            message: `url is not a valid regular expression: ${error.message}`,
        });
    }
});
const network_steps_status = schemas/* number */.aig({ error: 'status must be an HTTP status code' })
    .int('status must be a whole number')
    .min(100, 'status must be between 100 and 599')
    .max(599, 'status must be between 100 and 599')
    .optional();
const timeout = schemas/* number */.aig({ error: 'timeout must be a number of milliseconds' })
    .int('timeout must be a whole number of milliseconds')
    .min(0, 'timeout must not be negative')
    .max(600_000, 'timeout must be at most 600000 ms')
    .optional();
const mockRouteShape = {
    url: urlPattern,
    status: network_steps_status,
    headers: schemas/* record */.g1P(schemas/* string */.YjP(), schemas/* string */.YjP({ error: 'headers values must be strings' }), {
        error: 'headers must be an object of header names to string values',
    })
        .optional(),
    json: schemas/* unknown */.L5J().optional(),
    body: schemas/* string */.YjP({ error: 'body must be a string (use json for a JSON body)' }).optional(),
    abort: schemas/* boolean */.zMY({ error: 'abort must be true or false' }).optional(),
    times: schemas/* number */.aig({ error: 'times must be a number of requests' })
        .int('times must be a whole number of requests')
        .min(1, 'times must be at least 1')
        .optional(),
};
/** At most one answer (`json`, `body` or `abort`); an aborted request has no status or headers. */
function checkMockAnswer(step, ctx) {
    const given = ['json', 'body', 'abort'].filter((key) => key === 'abort' ? step.abort === true : step[key] !== undefined);
    if (given.length > 1)
        ctx.addIssue({
            code: 'custom',
            path: [given[1]],
            message: `give only one of json, body or abort (got ${given.join(' and ')})`,
        });
    if (step.abort === true)
        for (const key of ['status', 'headers'])
            if (step[key] !== undefined)
                ctx.addIssue({ code: 'custom', path: [key], message: `${key} has no meaning when abort is true` });
}
const waitForResponseShape = {
    url: urlPattern,
    /** Only responses to requests of this method (the page's own GET of the same URL is not it). */
    method: schemas/* enum */.k5n(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'], {
        error: 'method must be an HTTP method (GET, POST, PUT, PATCH, DELETE, HEAD or OPTIONS)',
    })
        .optional(),
    status: network_steps_status,
    jsonPath: schemas/* string */.YjP({ error: 'jsonPath must be a string such as $.items[0].id' })
        .min(1, 'jsonPath must not be empty')
        .optional(),
    equals: schemas/* unknown */.L5J().optional(),
    variable: schemas/* string */.YjP({ error: 'variable must be a string' }).min(1, 'variable must not be empty').optional(),
    timeout,
};
/** A `{{secrets.NAME}}` template and nothing else: a TOTP key is never stored in a test. */
const SECRET_TEMPLATE = /^\{\{\s*secrets\.[^}\s]+\s*\}\}$/;
const totpShape = {
    secret: schemas/* string */.YjP({ error: 'secret is required and must be a {{secrets.NAME}} template' })
        .refine((value) => SECRET_TEMPLATE.test(value.trim()), 'secret must be a {{secrets.NAME}} template holding an otpauth://totp/ URI or a base32 key'),
    variable: schemas/* string */.YjP({ error: 'variable is required and must be a string' })
        .min(1, 'variable must not be empty'),
    digits: schemas/* number */.aig({ error: 'digits must be a number' })
        .int('digits must be a whole number')
        .min(6, 'digits must be between 6 and 10')
        .max(10, 'digits must be between 6 and 10')
        .optional(),
    period: schemas/* number */.aig({ error: 'period must be a number of seconds' })
        .int('period must be a whole number of seconds')
        .min(1, 'period must be between 1 and 300 seconds')
        .max(300, 'period must be between 1 and 300 seconds')
        .optional(),
    algorithm: schemas/* enum */.k5n(['SHA1', 'SHA256', 'SHA512'], { error: 'algorithm must be one of SHA1, SHA256, SHA512' })
        .optional(),
};
/** axe-core's impact levels, least severe first. */
const accessibilityImpacts = ['minor', 'moderate', 'serious', 'critical'];
const assertAccessibleShape = {
    selector: schemas/* string */.YjP({ error: 'selector must be a string' }).min(1, 'selector must not be empty').optional(),
    impact: schemas/* enum */.k5n(accessibilityImpacts, { error: 'impact must be one of minor, moderate, serious, critical' })
        .optional(),
    skipRules: schemas/* array */.YOg(schemas/* string */.YjP({ error: 'skipRules must be a list of axe rule ids' }).min(1, 'a rule id must not be empty'), { error: 'skipRules must be a list of axe rule ids' })
        .max(200, 'skipRules takes at most 200 rule ids')
        .optional(),
};

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
/** How many `<iframe>`s deep a step's `frame` may reach. */
const maxFrameDepth = 5;
const frameSelector = schemas/* string */.YjP({ error: 'frame must be an iframe selector or a list of them' })
    .min(1, 'a frame selector must not be empty');
/**
 * The `<iframe>` a step's selector is looked for in: its selector, or a list of them from the
 * outer frame in (nested frames). Every action with a `selector` takes it.
 */
const step_actions_frame = schemas/* union */.KCZ([frameSelector, schemas/* array */.YOg(frameSelector, { error: 'frame must be an iframe selector or a list of them' })], {
    error: 'frame must be an iframe selector or a list of them',
})
    .refine((value) => !Array.isArray(value) || value.length > 0, 'frame must name at least one iframe')
    .refine((value) => !Array.isArray(value) || value.length <= maxFrameDepth, `frame nests at most ${maxFrameDepth} iframes`)
    .optional();
const action = (name, shape) => schemas/* object */.Ikc({
    name: schemas/* literal */.euz(name),
    ...base,
    ...shape,
    // A screenshot's selector is not looked up through `sd.locator`, so it has no frame.
    ...('selector' in shape && name !== 'assertScreenshot' ? { frame: step_actions_frame } : {}),
})
    .loose();
/** Options every assertion on the page takes: `not` inverts it, `timeout` (ms) replaces the default wait. */
const assertion = {
    not: schemas/* boolean */.zMY({ error: 'not must be true or false' }).optional(),
    timeout: schemas/* number */.aig({ error: 'timeout must be a number of milliseconds' })
        .int('timeout must be a whole number of milliseconds')
        .min(0, 'timeout must not be negative')
        .max(600_000, 'timeout must be at most 600000 ms')
        .optional(),
};
/**
 * Why `pattern` is not a regular expression JavaScript accepts, or null. A pattern holding a
 * `{{…}}` template is checked when the step runs, once the template is resolved.
 */
function invalidPatternReason(pattern) {
    if (pattern.includes('{{'))
        return null;
    try {
        new RegExp(pattern);
        return null;
    }
    catch (error) {
        return `is not a valid regular expression: ${error.message}`;
    }
}
/** With `regex: true`, `value` must compile as a regular expression. */
const regexValue = (schema) => schema.superRefine((step, ctx) => {
    const { value, regex } = step;
    if (!regex || typeof value !== 'string')
        return;
    const reason = invalidPatternReason(value);
    if (reason)
        ctx.addIssue({ code: 'custom', path: ['value'], message: `value ${reason}` });
});
const script = step_actions_text('script').min(1, 'script must not be empty');
/** `assertVitals`: an upper limit per metric (ms, CLS unitless); the metrics left out are not checked. */
const vitalLimit = (field, unit) => schemas/* number */.aig({ error: `${field} must be a number${unit}` })
    .min(0, `${field} must not be negative`)
    .optional();
const vitalLimits = {
    lcpMs: vitalLimit('lcpMs', ' of milliseconds'),
    cls: vitalLimit('cls', ''),
    inpMs: vitalLimit('inpMs', ' of milliseconds'),
    tbtMs: vitalLimit('tbtMs', ' of milliseconds'),
    fcpMs: vitalLimit('fcpMs', ' of milliseconds'),
    ttfbMs: vitalLimit('ttfbMs', ' of milliseconds'),
};
const regex = schemas/* boolean */.zMY({ error: 'regex must be true or false' }).optional();
const stepActionSchemas = [
    action('goto', { url: webUrl('navigation') }),
    action('reload', {}),
    action('goBack', {}),
    action('goForward', {}),
    // Tabs: the step that opens a popup or new tab makes it the current page; later steps act on it.
    action('waitForPopup', {
        selector,
        action: schemas/* enum */.k5n(['click', 'dblclick', 'press'], { error: 'action must be click, dblclick or press' })
            .optional(),
        key: schemas/* string */.YjP({ error: 'key must be a string' }).min(1, 'key must not be empty').optional(),
        timeout: assertion.timeout,
    }).superRefine((step, ctx) => {
        if (step.action === 'press' && step.key === undefined)
            ctx.addIssue({ code: 'custom', path: ['key'], message: 'key is required when action is press' });
        if (step.action !== 'press' && step.key !== undefined)
            ctx.addIssue({ code: 'custom', path: ['key'], message: 'key is only used when action is press' });
    }),
    action('switchTab', {
        index: schemas/* number */.aig({ error: 'index must be a number' })
            .int('index must be a whole number')
            .min(0, 'index must not be negative (0 is the first tab)')
            .optional(),
        url: schemas/* string */.YjP({ error: 'url must be a string' }).min(1, 'url must not be empty').optional(),
        title: schemas/* string */.YjP({ error: 'title must be a string' }).min(1, 'title must not be empty').optional(),
        timeout: assertion.timeout,
    }).superRefine((step, ctx) => {
        const given = [step.index, step.url, step.title].filter((value) => value !== undefined).length;
        if (given !== 1)
            ctx.addIssue({ code: 'custom', message: 'give exactly one of index, url or title' });
        for (const key of ['url', 'title']) {
            const value = step[key];
            const pattern = value === undefined ? undefined : /^\/(.*)\/([a-z]*)$/s.exec(value);
            if (!pattern || value?.includes('{{'))
                continue;
            try {
                new RegExp(pattern[1] ?? '', pattern[2]);
            }
            catch (error) {
                ctx.addIssue({
                    code: 'custom',
                    path: [key],
                    message: `${key} is not a valid regular expression: ${error.message}`,
                });
            }
        }
    }),
    action('closeTab', {
        index: schemas/* number */.aig({ error: 'index must be a number' })
            .int('index must be a whole number')
            .min(0, 'index must not be negative (0 is the first tab)')
            .optional(),
    }),
    action('click', { selector }),
    action('dblclick', { selector }),
    action('hover', { selector }),
    action('fill', { selector, value: step_actions_text('value') }),
    // Key by key, as a user types (each key fires its keyboard events): `pressSequentially`.
    action('type', {
        selector,
        value: step_actions_text('value'),
        delay: schemas/* number */.aig({ error: 'delay must be a number of milliseconds' }).int().min(0).max(10_000).optional(),
    }),
    action('press', { selector: schemas/* string */.YjP().optional(), key: step_actions_text('key') }),
    action('check', { selector }),
    action('uncheck', { selector }),
    action('selectOption', { selector, value: step_actions_text('value') }),
    action('setInputFiles', {
        selector,
        files: schemas/* array */.YOg(schemas/* string */.YjP(), { error: 'files must be an array of filenames' }),
    }),
    action('focus', { selector }),
    action('blur', { selector }),
    action('scrollIntoView', { selector }),
    action('dragTo', { selector, target: step_actions_text('target').min(1, 'target must not be empty') }),
    action('dispatchEvent', {
        selector,
        event: step_actions_text('event').min(1, 'event must not be empty'),
        eventInit: schemas/* record */.g1P(schemas/* string */.YjP(), schemas/* unknown */.L5J(), { error: 'eventInit must be a JSON object' }).optional(),
    }),
    action('wait', { ms: schemas/* number */.aig({ error: 'ms must be a number' }).int().min(0).max(3_600_000) }),
    action('waitFor', { selector, state: schemas/* enum */.k5n(['attached', 'detached', 'visible', 'hidden']).optional() }),
    action('assertVisible', { selector, ...assertion }),
    action('assertHidden', { selector, ...assertion }),
    action('assertText', { selector, value: step_actions_text('value'), exact: schemas/* boolean */.zMY().optional(), ...assertion }),
    // The ordered texts of every element the selector matches: Playwright's `toHaveText([...])`.
    action('assertTexts', {
        selector,
        values: schemas/* array */.YOg(schemas/* string */.YjP({ error: 'values must be a list of texts' }), {
            error: 'values must be a list of texts',
        }),
        exact: schemas/* boolean */.zMY().optional(),
        ...assertion,
    }),
    action('assertValue', { selector, value: step_actions_text('value'), ...assertion }),
    action('assertChecked', {
        selector,
        checked: schemas/* boolean */.zMY({ error: 'checked must be true or false' }).optional(),
        ...assertion,
    }),
    action('assertEnabled', { selector, ...assertion }),
    action('assertDisabled', { selector, ...assertion }),
    action('assertClass', {
        selector,
        value: step_actions_text('value').min(1, 'value must name at least one class'),
        exact: schemas/* boolean */.zMY().optional(),
        ...assertion,
    }),
    regexValue(action('assertAttribute', {
        selector,
        attribute: step_actions_text('attribute').min(1, 'attribute must not be empty'),
        value: schemas/* string */.YjP({ error: 'value must be a string' }).optional(),
        regex,
        ...assertion,
    })),
    regexValue(action('assertCss', {
        selector,
        property: step_actions_text('property').min(1, 'property must not be empty'),
        value: step_actions_text('value'),
        regex,
        ...assertion,
    })),
    action('assertUrl', { value: step_actions_text('value'), ...assertion }),
    action('assertTitle', { value: step_actions_text('value'), ...assertion }),
    action('assertCount', {
        selector,
        value: schemas/* number */.aig({ error: 'value must be a number' }).int().min(0),
        ...assertion,
    }),
    action('extract', { selector, variable: step_actions_text('variable'), attribute: schemas/* string */.YjP().optional() }),
    // A script runs in the page (never in the runner): an expression, or a function body with `return`.
    action('evaluate', { script, variable: schemas/* string */.YjP().optional() }),
    // Polls the script until its value is truthy, equals `equals` or matches `matches`.
    action('assertScript', {
        script,
        equals: schemas/* unknown */.L5J().optional(),
        matches: schemas/* string */.YjP({ error: 'matches must be a regular expression as a string' }).optional(),
        ...assertion,
    }).superRefine((step, ctx) => {
        if (step.equals !== undefined && step.matches !== undefined)
            ctx.addIssue({ code: 'custom', path: ['matches'], message: 'give either equals or matches, not both' });
        const reason = step.matches === undefined ? null : invalidPatternReason(step.matches);
        if (reason)
            ctx.addIssue({ code: 'custom', path: ['matches'], message: `matches ${reason}` });
    }),
    // Compared with the baseline of its branch (the page, or one element); see docs/runner.md.
    action('assertScreenshot', {
        selector: schemas/* string */.YjP({ error: 'selector must be a string' })
            .min(1, 'selector must not be empty')
            .optional(),
        mask: schemas/* array */.YOg(schemas/* string */.YjP().min(1, 'a mask selector must not be empty'), {
            error: 'mask must be a list of selectors',
        })
            .max(50, 'mask takes at most 50 selectors')
            .optional(),
        maxDiffPixels: schemas/* number */.aig({ error: 'maxDiffPixels must be a number of pixels' })
            .int('maxDiffPixels must be a whole number of pixels')
            .min(0, 'maxDiffPixels must not be negative')
            .optional(),
        maxDiffPixelRatio: schemas/* number */.aig({ error: 'maxDiffPixelRatio must be a number between 0 and 1' })
            .min(0, 'maxDiffPixelRatio must be between 0 and 1')
            .max(1, 'maxDiffPixelRatio must be between 0 and 1')
            .optional(),
        threshold: schemas/* number */.aig({ error: 'threshold must be a number between 0 and 1' })
            .min(0, 'threshold must be between 0 and 1')
            .max(1, 'threshold must be between 0 and 1')
            .optional(),
        fullPage: schemas/* boolean */.zMY({ error: 'fullPage must be true or false' }).optional(),
        timeout: assertion.timeout,
    }),
    // Web Vitals of the current page (LCP, CLS, INP/TBT, FCP, TTFB) into the test result.
    action('measureVitals', { label: schemas/* string */.YjP({ error: 'label must be a string' }).optional() }),
    action('assertVitals', vitalLimits).superRefine((step, ctx) => {
        if (Object.keys(vitalLimits).every((key) => step[key] === undefined))
            ctx.addIssue({
                code: 'custom',
                message: 'give at least one limit: lcpMs, cls, inpMs, tbtMs, fcpMs or ttfbMs',
            });
    }),
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
    // Network mocks and responses, TOTP codes, accessibility: fields in network-steps.ts.
    action('mockRoute', mockRouteShape).superRefine(checkMockAnswer),
    action('waitForResponse', waitForResponseShape),
    action('totp', totpShape),
    action('assertAccessible', assertAccessibleShape),
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
 * How deep groups may nest in a step tree as written. The editor never needs more than a few
 * levels; past some hundreds, Playwright cannot even load the compiled spec (the stack runs out).
 */
const maxStepDepth = 50;
/** The longest step name (test names take 64, copies 128). */
const maxStepNameLength = 256;
/**
 * Default quotas on one test's step tree, install settings of the service: `MAX_STEPS_PER_TEST`
 * counts every node with shared steps expanded, groups included; `MAX_STEP_TREE_BYTES` is the
 * UTF-8 size of the stored steps (each step's name and its action, condition and metadata JSON).
 */
const defaultMaxStepsPerTest = 2000;
const defaultMaxStepTreeBytes = (/* unused pure expression or super */ null && (1024 * 1024));
/**
 * Validates one action and names the step and field on failure, e.g.
 * `step "Log in" (steps[2]): action.selector: selector is required and must be a string`.
 */
function describeActionError(stepLabel, error) {
    const issue = error.issues[0];
    const field = issue && issue.path.length > 0 ? `action.${issue.path.join('.')}` : 'action.name';
    return `${stepLabel}: ${field}: ${issue?.message ?? 'invalid action'}`;
}

;// CONCATENATED MODULE: ./contract/src/recording-tabs.ts

/**
 * Tabs, popups and frames in a recording. The recorder names the page of every action
 * (`pageGuid`) and the popup an action opened (a `popup` signal with the new page's guid);
 * steps instead keep one current page, changed by `waitForPopup`, `switchTab` and `closeTab`.
 * Frames come inside the selector (`iframe >> internal:control=enter-frame >> button`); a
 * step names them in its `frame` option instead.
 */
const ENTER_FRAME = ' >> internal:control=enter-frame >> ';
/** The action with the iframes its selector enters moved into `frame` (outer first). */
function withFrame(action) {
    const selector = action.selector;
    if (typeof selector !== 'string' || !selector.includes(ENTER_FRAME))
        return action;
    const frames = selector.split(ENTER_FRAME);
    const own = frames.pop() ?? '';
    // Deeper than a step may name, or a part the split cannot stand for: the selector stays whole.
    if (frames.length > maxFrameDepth || own.trim() === '' || frames.some((frame) => frame.trim() === ''))
        return action;
    return { ...action, selector: own, frame: frames.length === 1 ? frames[0] : frames };
}
/** The recorder's pages in opening order and the one the steps act on. */
class RecordedTabs {
    pages = [];
    current;
    /** A popup whose page the recorder did not name: the next unknown page is that one. */
    unnamedPopup;
    unnamed = 0;
    /**
     * Before an action on `pageGuid`: nothing when it is the current page, a `switchTab` step
     * when it is another tab the steps opened, or why the action has no step.
     */
    enter(pageGuid) {
        if (!pageGuid)
            return {};
        if (this.current === undefined) {
            this.pages.push(pageGuid);
            this.current = pageGuid;
            return {};
        }
        if (pageGuid === this.current)
            return {};
        const index = this.pages.indexOf(pageGuid);
        if (index < 0) {
            if (this.unnamedPopup === undefined || this.unnamedPopup !== this.current)
                return { reason: 'on a tab no recorded step opened' };
            this.pages[this.pages.indexOf(this.unnamedPopup)] = pageGuid;
            this.unnamedPopup = undefined;
            this.current = pageGuid;
            return {};
        }
        this.current = pageGuid;
        return { step: { name: `Switch to tab ${index + 1}`, action: { name: 'switchTab', index } } };
    }
    /** The action that opened a popup: its page becomes the current one. */
    opened(popupPageGuid) {
        const guid = popupPageGuid ?? `unnamed-popup-${++this.unnamed}`;
        if (popupPageGuid === undefined)
            this.unnamedPopup = guid;
        this.pages.push(guid);
        this.current = guid;
    }
    /** A tab closing while the recording goes on: a `closeTab` step (none for a page never used). */
    closed(pageGuid) {
        const index = pageGuid === undefined ? -1 : this.pages.indexOf(pageGuid);
        if (index < 0 || this.pages.length <= 1)
            return undefined;
        const wasCurrent = pageGuid === this.current;
        this.pages.splice(index, 1);
        if (!wasCurrent)
            return { name: `Close tab ${index + 1}`, action: { name: 'closeTab', index } };
        // As the step does at run time: the last tab still open becomes the current one.
        this.current = this.pages[this.pages.length - 1];
        return { name: 'Close tab', action: { name: 'closeTab' } };
    }
}
/** The step for an action that opened a popup: the same trigger, waiting for the new page. */
function popupStep(step) {
    const action = step.action;
    const frame = action.frame;
    const inFrame = frame === undefined ? {} : { frame };
    if (action.name === 'click')
        return {
            name: `${step.name} (opens a popup)`,
            action: { name: 'waitForPopup', selector: action.selector, ...inFrame },
        };
    if (action.name === 'dblclick')
        return {
            name: `${step.name} (opens a popup)`,
            action: { name: 'waitForPopup', selector: action.selector, action: 'dblclick', ...inFrame },
        };
    if (action.name === 'press' && action.selector)
        return {
            name: `${step.name} (opens a popup)`,
            action: {
                name: 'waitForPopup',
                selector: action.selector,
                action: 'press',
                key: action.key,
                ...inFrame,
            },
        };
    return undefined;
}

;// CONCATENATED MODULE: ./contract/src/recording.ts

/** Parses the recorder's JSONL (the header line of options is skipped; blank lines too). */
function parseRecording(jsonl) {
    const actions = [];
    for (const [index, line] of jsonl.split('\n').entries()) {
        if (!line.trim())
            continue;
        let entry;
        try {
            entry = JSON.parse(line);
        }
        catch {
            throw new Error(`the recorder's output is not JSONL (line ${index + 1})`);
        }
        if (typeof entry !== 'object' || entry === null)
            continue;
        const name = entry.name;
        // The header (`{ browserName, launchOptions, … }`) is the only line without a name.
        if (typeof name === 'string')
            actions.push(entry);
    }
    return actions;
}
// Bits of the recorder's `modifiers` field, and the key names its own code generator writes.
const modifierNames = [
    [1, 'Alt'],
    [2, 'ControlOrMeta'],
    [4, 'ControlOrMeta'],
    [8, 'Shift'],
];
function modifierList(modifiers) {
    const names = modifierNames.filter(([bit]) => ((modifiers ?? 0) & bit) !== 0).map(([, name]) => name);
    return [...new Set(names)];
}
const quote = (value) => `'${String(value).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const withExact = (method, body, options) => `${method}(${quote(body)}${options.exact ? ', { exact: true }' : ''})`;
/** The locator as Playwright's JavaScript would write it: `getByRole('button', { name: 'Go' })`. */
function describeLocator(locator) {
    const parts = [];
    for (let part = locator; part; part = part.next) {
        const options = part.options ?? {};
        switch (part.kind) {
            case 'role': {
                const attrs = [];
                if (typeof options.name === 'string')
                    attrs.push(`name: ${quote(options.name)}`);
                if (options.exact && typeof options.name === 'string')
                    attrs.push('exact: true');
                for (const attr of options.attrs ?? [])
                    attrs.push(`${attr.name}: ${typeof attr.value === 'string' ? quote(attr.value) : String(attr.value)}`);
                parts.push(`getByRole(${quote(part.body)}${attrs.length ? `, { ${attrs.join(', ')} }` : ''})`);
                break;
            }
            case 'test-id':
                parts.push(`getByTestId(${quote(part.body)})`);
                break;
            case 'text':
                parts.push(withExact('getByText', part.body, options));
                break;
            case 'label':
                parts.push(withExact('getByLabel', part.body, options));
                break;
            case 'placeholder':
                parts.push(withExact('getByPlaceholder', part.body, options));
                break;
            case 'alt':
                parts.push(withExact('getByAltText', part.body, options));
                break;
            case 'title':
                parts.push(withExact('getByTitle', part.body, options));
                break;
            case 'frame':
                parts.push('contentFrame()');
                break;
            case 'nth':
                parts.push(`nth(${String(part.body)})`);
                break;
            case 'first':
            case 'last':
                parts.push(`${part.kind}()`);
                break;
            case 'has-text':
                parts.push(`filter({ hasText: ${quote(part.body)} })`);
                break;
            default:
                parts.push(`locator(${quote(part.body)})`);
        }
    }
    return parts.join('.');
}
const stepNameMax = 120;
function stepName(verb, action, detail) {
    const target = action.selector ? describeLocator(action.locator) || action.selector : '';
    const name = [verb, target, detail].filter(Boolean).join(' ');
    return name.length > stepNameMax ? `${name.slice(0, stepNameMax - 1)}…` : name;
}
function mapOne(action) {
    const selector = action.selector ?? '';
    const needsSelector = (make) => selector ? make() : { reason: 'the recorder gave no selector' };
    const step = (name, stepAction) => ({ step: { name, action: stepAction } });
    switch (action.name) {
        // The recorder's markers for the tab it opened and the tab closing at the end.
        case 'openPage':
        case 'closePage':
            return { skip: true };
        case 'navigate':
            return action.url
                ? step(`Go to ${action.url}`, { name: 'goto', url: action.url })
                : { reason: 'no URL' };
        case 'click': {
            if (action.button && action.button !== 'left')
                return { reason: `${action.button} button` };
            const modifiers = modifierList(action.modifiers);
            if (modifiers.length > 0)
                return { reason: `with ${modifiers.join('+')} held` };
            if (action.position)
                return { reason: 'at a position inside the element' };
            const count = action.clickCount ?? 1;
            if (count === 2)
                return needsSelector(() => step(stepName('Double-click', action), { name: 'dblclick', selector }));
            if (count !== 1)
                return { reason: `${count} clicks` };
            return needsSelector(() => step(stepName('Click', action), { name: 'click', selector }));
        }
        case 'hover':
            if (action.position)
                return { reason: 'at a position inside the element' };
            return needsSelector(() => step(stepName('Hover', action), { name: 'hover', selector }));
        case 'check':
        case 'uncheck':
            return needsSelector(() => step(stepName(action.name === 'check' ? 'Check' : 'Uncheck', action), action.name === 'check' ? { name: 'check', selector } : { name: 'uncheck', selector }));
        case 'fill':
            return needsSelector(() => step(stepName('Fill', action), { name: 'fill', selector, value: action.text ?? '' }));
        case 'press': {
            if (!action.key)
                return { reason: 'no key' };
            const key = [...modifierList(action.modifiers), action.key].join('+');
            return step(stepName('Press', action, key), selector ? { name: 'press', selector, key } : { name: 'press', key });
        }
        case 'select': {
            const options = action.options ?? [];
            if (options.length !== 1)
                return { reason: `${options.length} options selected (a step selects one)` };
            return needsSelector(() => step(stepName('Select', action, options[0]), {
                name: 'selectOption',
                selector,
                value: options[0] ?? '',
            }));
        }
        case 'setInputFiles':
            return needsSelector(() => step(stepName('Upload to', action), { name: 'setInputFiles', selector, files: action.files ?? [] }));
        case 'assertVisible':
            return needsSelector(() => step(stepName('Expect visible', action), { name: 'assertVisible', selector }));
        case 'assertText':
            return needsSelector(() => step(stepName(action.substring ? 'Expect text in' : 'Expect text of', action), {
                name: 'assertText',
                selector,
                value: action.text ?? '',
                exact: !action.substring,
            }));
        case 'assertValue':
            return needsSelector(() => step(stepName('Expect value of', action), {
                name: 'assertValue',
                selector,
                value: action.value ?? '',
            }));
        case 'assertChecked':
            // `checked` is the state the user asserted (the recorder reads it before the click flips it).
            return needsSelector(() => step(stepName(action.checked === false ? 'Expect unchecked' : 'Expect checked', action), action.checked === false
                ? { name: 'assertChecked', selector, checked: false }
                : { name: 'assertChecked', selector }));
        case 'assertSnapshot':
            return { reason: 'no step asserts an ARIA snapshot' };
        default:
            return { reason: 'no step does this' };
    }
}
/**
 * Maps recorded actions to steps, in order. Every action that does not become a step is listed
 * in `unmapped` with a reason, except the recorder's own open/close-tab markers. A popup an
 * action opened becomes a `waitForPopup` step, actions on another tab a `switchTab` before
 * them, a tab closed mid-recording a `closeTab` (see `recording-tabs.ts`); iframes entered by a selector
 * become the step's `frame`.
 */
function mapRecording(actions) {
    const steps = [];
    const unmapped = [];
    const files = new Set();
    const tabs = new RecordedTabs();
    const marker = (action) => action.name === 'openPage' || action.name === 'closePage';
    // Tabs closing after the last action are the recording ending, not steps.
    const lastAction = actions.findLastIndex((action) => !marker(action));
    for (const [index, action] of actions.entries()) {
        if (action.name === 'closePage') {
            const close = index < lastAction ? tabs.closed(action.pageGuid) : undefined;
            if (close)
                steps.push(close);
            continue;
        }
        if (marker(action))
            continue;
        const entered = tabs.enter(action.pageGuid);
        if ('reason' in entered) {
            unmapped.push({ action: action.name, reason: entered.reason });
            continue;
        }
        if (entered.step)
            steps.push(entered.step);
        const mapping = mapOne(action);
        if ('skip' in mapping)
            continue;
        if ('reason' in mapping) {
            unmapped.push({ action: action.name, reason: mapping.reason });
            continue;
        }
        let step = { ...mapping.step, action: withFrame(mapping.step.action) };
        const popup = action.signals?.find((signal) => signal.name === 'popup');
        const waiting = popup ? popupStep(step) : undefined;
        if (popup && waiting) {
            step = waiting;
            tabs.opened(popup.popupPageGuid);
        }
        steps.push(step);
        if (step.action.name === 'setInputFiles')
            for (const file of step.action.files)
                files.add(file);
        for (const signal of action.signals ?? [])
            if ((signal.name === 'popup' && !waiting) || signal.name === 'download')
                unmapped.push({
                    action: `${action.name} → ${signal.name}`,
                    reason: `the ${signal.name} it opened is not followed`,
                });
    }
    return { steps, unmapped, files: [...files] };
}

// EXTERNAL MODULE: ./src/client.ts + 8 modules
var src_client = __webpack_require__(51936);
// EXTERNAL MODULE: external "node:module"
var external_node_module_ = __webpack_require__(98995);
// EXTERNAL MODULE: external "node:os"
var external_node_os_ = __webpack_require__(48161);
var external_node_os_default = /*#__PURE__*/__webpack_require__.n(external_node_os_);
;// CONCATENATED MODULE: ./src/record/session.ts




const missingPlaywright = 'Playwright is not installed here: run `npm install --save-dev playwright`, then `npx playwright install chromium`';
/** Loads the user's Playwright; the one-line error above when there is none. */
function loadPlaywright(from = [process.cwd(), external_node_path_default().dirname(process.argv[1] ?? '.')]) {
    for (const base of from) {
        const require = (0,external_node_module_.createRequire)(external_node_path_default().join(external_node_path_default().resolve(base), 'noop.js'));
        for (const name of ['playwright-core', 'playwright', '@playwright/test']) {
            let resolved;
            try {
                resolved = require.resolve(name);
            }
            catch {
                continue;
            }
            const playwright = require(resolved);
            if (playwright.chromium)
                return { playwright: playwright, resolved };
        }
    }
    throw new Error(missingPlaywright);
}
/**
 * Opens `url` in a browser with the codegen recorder (its inspector window shows the code as
 * you go) and resolves with the recorder's JSONL once the last tab or the browser is closed.
 */
async function recordSession(options, playwright) {
    const { chromium } = playwright ?? loadPlaywright().playwright;
    const outputDir = external_node_fs_default().mkdtempSync(external_node_path_default().join(external_node_os_default().tmpdir(), 'stepdeck-record-'));
    const outputFile = external_node_path_default().join(outputDir, 'recording.jsonl');
    const browser = await chromium.launch({
        headless: options.headless ?? false,
        ...(options.executablePath ? { executablePath: options.executablePath } : {}),
        ...(options.args ? { args: options.args } : {}),
        // Ctrl-C ends the command (nothing saved); Playwright must not close the browser first.
        handleSIGINT: false,
    });
    let onInterrupt;
    try {
        const context = await browser.newContext();
        let cancelled = false;
        const finished = new Promise((resolve) => {
            // Ctrl-C: close the browser and save nothing (closing it is how a recording is kept).
            onInterrupt = () => {
                cancelled = true;
                resolve();
            };
            process.once('SIGINT', onInterrupt);
            browser.on('disconnected', resolve);
            context.on('page', (page) => page.on('close', () => {
                if (context.pages().length === 0)
                    resolve();
            }));
        });
        const show = context._showRecorder ?? context._enableRecorder;
        if (!show)
            throw new Error('this Playwright has no codegen recorder API: install playwright 1.50 or newer');
        // The recorder writes all it recorded so far to outputFile, in its JSONL language.
        await show.call(context, { language: 'jsonl', mode: 'recording', outputFile, handleSIGINT: false });
        const page = await context.newPage();
        await page.goto(options.url);
        options.log?.('Recording: act in the browser, then close it to save the steps.');
        if (options.drive)
            await options.drive(page);
        await finished;
        if (cancelled)
            throw new Error('recording cancelled (Ctrl-C): nothing saved');
        // Closing the context flushes the recorder's output file.
        await context.close().catch(() => { });
        return external_node_fs_default().existsSync(outputFile) ? external_node_fs_default().readFileSync(outputFile, 'utf8') : '';
    }
    finally {
        if (onInterrupt)
            process.off('SIGINT', onInterrupt);
        await browser.close().catch(() => { });
        external_node_fs_default().rmSync(outputDir, { recursive: true, force: true });
    }
}

;// CONCATENATED MODULE: ./src/record/command.ts






const recordUsage = `Usage: stepdeck record <url> [options]

Opens <url> in Chromium with Playwright's codegen recorder. Act in the browser, then close it:
what was recorded is saved as a new draft test, or appended to --test-id.
Needs Playwright where you run it (npm install --save-dev playwright).

  --name NAME            name of the new test (max 64 characters)
  --parent UUID          directory to create it in
  --test-id UUID         append to this test instead (its steps are kept)
  --strict               save nothing when an action has no step (default: save the
                         mapped steps and list the others)
  --files-dir DIR        where files chosen for uploads are read from (default: .)
  --browser-path PATH    a Chromium to use instead of Playwright's own
  --json                 print { testId, steps, unmapped } as JSON on stdout
  --api-key KEY  --base-url URL  --project-id UUID  --branch-id UUID
                         as for stepdeck run (or STEPDECK_API_KEY, ...)
`;
const command_uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
class RecordInputError extends Error {
    name = 'RecordInputError';
}
/** Flags and STEPDECK_<NAME> variables; every problem listed at once. */
function parseRecordArgs(argv, env) {
    const { values, positionals } = (0,external_node_util_.parseArgs)({
        args: argv,
        allowPositionals: true,
        options: {
            name: { type: 'string' },
            parent: { type: 'string' },
            'test-id': { type: 'string' },
            strict: { type: 'boolean' },
            'files-dir': { type: 'string' },
            'browser-path': { type: 'string' },
            json: { type: 'boolean' },
            'api-key': { type: 'string' },
            'base-url': { type: 'string' },
            'project-id': { type: 'string' },
            'branch-id': { type: 'string' },
        },
    });
    const problems = [];
    const setting = (name) => {
        const flag = values[name];
        const value = typeof flag === 'string' ? flag : env[`STEPDECK_${name.toUpperCase().replace(/-/g, '_')}`];
        return value?.trim() || undefined;
    };
    const uuid = (name) => {
        const value = setting(name);
        if (value !== undefined && !command_uuidPattern.test(value))
            problems.push(`--${name} must be a UUID, got "${value}"`);
        return value;
    };
    const required = (name) => {
        const value = setting(name);
        if (value === undefined)
            problems.push(`--${name} is required`);
        return value ?? '';
    };
    const [url = '', ...extra] = positionals;
    if (!url)
        problems.push('the URL to record is required: stepdeck record <url>');
    else if (!/^https?:\/\//i.test(url))
        problems.push(`the URL must start with http:// or https://, got "${url}"`);
    if (extra.length > 0)
        problems.push(`unexpected arguments: ${extra.join(' ')}`);
    const apiKey = required('api-key');
    const baseUrl = required('base-url').replace(/\/+$/, '');
    if (baseUrl && !/^https?:\/\//i.test(baseUrl))
        problems.push(`--base-url must be an http(s) URL, got "${baseUrl}"`);
    const projectId = required('project-id');
    if (projectId && !command_uuidPattern.test(projectId))
        problems.push(`--project-id must be a UUID, got "${projectId}"`);
    const testId = uuid('test-id');
    const parent = uuid('parent');
    const name = typeof values.name === 'string' ? values.name.trim() : undefined;
    if (testId && (name || parent))
        problems.push('--test-id appends to a test: leave out --name and --parent');
    if (!testId && !name)
        problems.push('--name is required for a new test (or --test-id to append)');
    if (name && name.length > 64)
        problems.push(`--name must be at most 64 characters, got ${name.length}`);
    if (problems.length > 0)
        throw new RecordInputError(problems.join('; '));
    return {
        url,
        name,
        parent,
        testId,
        strict: values.strict === true,
        filesDir: external_node_path_default().resolve(typeof values['files-dir'] === 'string' ? values['files-dir'] : '.'),
        browserPath: setting('browser-path'),
        json: values.json === true,
        apiKey,
        baseUrl,
        projectId,
        branchId: uuid('branch-id'),
    };
}
/**
 * Records, maps and saves. A new test is a draft (`--name`, `--parent`); `--test-id` appends
 * after its steps, sending the `editVersion` read with them, so a test changed meanwhile
 * answers 409 instead of losing either side. Nothing is saved with `--strict` and an unmapped
 * action, or when nothing became a step.
 */
async function record(settings, log, session = {}) {
    const client = new src_client/* StepdeckClient */.d({ ...settings, log });
    // Read before recording: a wrong id, key or service fails now, not after the user's session.
    const existing = settings.testId ? await client.getTest(settings.testId) : undefined;
    if (existing?.test.directory)
        throw new RecordInputError(`--test-id ${settings.testId} is a directory`);
    if (settings.parent && !(await client.getTest(settings.parent)).test.directory)
        throw new RecordInputError(`--parent ${settings.parent} is a test, not a directory`);
    if (!settings.testId && !settings.parent)
        await client.checkAccess();
    const jsonl = await recordSession({
        url: settings.url,
        executablePath: settings.browserPath,
        log,
        ...session,
    });
    const mapped = mapRecording(parseRecording(jsonl));
    for (const { action, reason } of mapped.unmapped)
        log(`Not mapped: ${action} (${reason})`);
    if (mapped.steps.length === 0) {
        log('Nothing was recorded: no test saved.');
        return { testId: null, mapped };
    }
    if (settings.strict && mapped.unmapped.length > 0) {
        log(`--strict: ${mapped.unmapped.length} recorded action(s) have no step; no test saved.`);
        return { testId: null, mapped };
    }
    const files = [];
    for (const filename of mapped.files) {
        const file = external_node_path_default().join(settings.filesDir, external_node_path_default().basename(filename));
        if (external_node_fs_default().existsSync(file))
            files.push({ filename: external_node_path_default().basename(filename), content: external_node_fs_default().readFileSync(file) });
        else
            log(`Upload "${filename}" to the test in the console: it is not in ${settings.filesDir}`);
    }
    if (existing && settings.testId) {
        await client.updateTest(settings.testId, { steps: [...existing.steps, ...mapped.steps], editVersion: existing.test.editVersion }, files);
        log(`Appended ${mapped.steps.length} step(s) to "${existing.test.name}" (${settings.testId}).`);
        return { testId: settings.testId, mapped };
    }
    const testId = await client.createTest({
        name: settings.name,
        status: 'draft',
        ...(settings.parent ? { parentTestId: settings.parent } : {}),
        steps: mapped.steps,
    }, files);
    log(`Saved "${settings.name}" (${testId}) with ${mapped.steps.length} step(s), as a draft.`);
    return { testId, mapped };
}
/** `stepdeck record`. Exit codes: 0 saved, 1 nothing saved (strict, empty), 2 usage or API error. */
async function recordMain(argv, env, session = {}) {
    const err = (line) => process.stderr.write(`${line}\n`);
    let settings;
    try {
        settings = parseRecordArgs(argv, env);
    }
    catch (error) {
        err(`stepdeck record: ${error.message}\n\n${recordUsage}`);
        return 2;
    }
    try {
        const result = await record(settings, err, session);
        if (settings.json)
            process.stdout.write(`${JSON.stringify({ testId: result.testId, steps: result.mapped.steps, unmapped: result.mapped.unmapped })}\n`);
        return result.testId ? 0 : 1;
    }
    catch (error) {
        let message = error instanceof Error ? error.message : String(error);
        if (error instanceof src_client/* ApiError */.hD && error.status === 409)
            message = `the test changed while you recorded (409); nothing was saved, record again: ${message}`;
        // Playwright's launch errors run to many lines (a log box): the first says what failed.
        let line = message.split('\n')[0] ?? '';
        if (line.includes("Executable doesn't exist"))
            line += '; run `npx playwright install chromium`, or pass --browser-path';
        err(`stepdeck record: ${line.replaceAll(settings.apiKey, '***')}`);
        return 2;
    }
}

;// CONCATENATED MODULE: ./src/run-source.ts
/**
 * Where the run's code came from, from the GitHub Actions variables (absent elsewhere): the
 * commit, the branch (a pull request's head branch), its base branch and number. The service
 * stores it with the run; its history and triage compare branches with it.
 */
function runSourceOf(env) {
    const source = {};
    const value = (name) => env[name]?.trim() || undefined;
    const commitSha = value('GITHUB_SHA');
    if (commitSha)
        source.commitSha = commitSha;
    const ref = value('GITHUB_HEAD_REF') ?? value('GITHUB_REF_NAME') ?? value('GITHUB_REF');
    if (ref)
        source.ref = ref;
    const baseRef = value('GITHUB_BASE_REF');
    if (baseRef)
        source.baseRef = baseRef;
    const pullRequest = /^refs\/pull\/(\d+)\//.exec(value('GITHUB_REF') ?? '')?.[1];
    if (pullRequest)
        source.pullRequest = Number(pullRequest);
    return source;
}

;// CONCATENATED MODULE: ./src/cli-main.ts




const usage = `Usage: stepdeck run [options]

Triggers a Stepdeck run, waits for it and exits non-zero per --fail-on.
Every option also reads STEPDECK_<NAME> (e.g. STEPDECK_API_KEY, STEPDECK_TAG_ID,
STEPDECK_ARTIFACTS_DIR, STEPDECK_JSON=true, STEPDECK_WAIT=false); a flag wins over its variable.

  --api-key KEY               API key (prefer STEPDECK_API_KEY)
  --base-url URL              the Stepdeck service
  --project-id UUID           --branch-id UUID
  --test-ids ID,ID            or --tag-id UUID (exactly one)
  --config JSON               --target-url URL   --browser chromium|firefox|webkit
  --environment NAME          an environment of the project (staging, production): its base
                              URL, variables and secrets; --config/--target-url still win
  --wait / --no-wait          (default: wait; --no-wait prints "<run-id> <run-url>" per run)
  --timeout-minutes N         (30)     --poll-interval-seconds N (5)
  --fail-on LIST              (failed,cancelled,timeout,error; or none)
  --artifacts all|failed|none (all)    --artifacts-dir DIR (./stepdeck-artifacts)
  --label TEXT                a label stored with the run (a deploy, an environment)
  --visual-changes warn|fail|ignore  (warn) screenshots awaiting review: warn, exit 1, or
                              only count them
  --json                      print the outputs as JSON on stdout (errors too)

Also: stepdeck record <url>   records a test in a browser (stepdeck record --help)
`;
/** Exit codes: 0 ok, 1 an outcome listed in fail-on (or visual changes with --visual-changes fail), 2 usage or API error. */
async function main(argv, env = process.env) {
    const err = (line) => process.stderr.write(`${line}\n`);
    if (argv[0] === 'record') {
        if (argv.includes('--help') || argv.includes('-h')) {
            process.stdout.write(recordUsage);
            return 0;
        }
        return recordMain(argv.slice(1), env);
    }
    // With --json, stdout holds exactly one JSON document, errors included.
    const json = wantsJson(argv, env);
    const fail = (message, withUsage = false) => {
        err(message.replace(/^/gm, 'stepdeck: '));
        if (withUsage)
            err(`\n${usage}`);
        if (json)
            process.stdout.write(`${JSON.stringify({ status: 'error', error: message })}\n`);
        return 2;
    };
    let args;
    try {
        args = readArgs(argv, env);
    }
    catch (error) {
        return fail(error.message, true);
    }
    if (args.help) {
        process.stdout.write(usage);
        return 0;
    }
    if (args.command !== 'run')
        return fail(args.command ? `unknown command "${args.command}"` : 'no command given', true);
    let inputs;
    const problems = [...args.problems];
    try {
        inputs = await parseInputs(args.raw, { workflow: 'cli', job: 'run', source: runSourceOf(env) });
    }
    catch (error) {
        if (!(error instanceof InputError))
            throw error;
        problems.push(...error.problems.map(cliWording));
    }
    if (problems.length > 0 || !inputs) {
        // One problem per line, named by flag and variable: the CLI has no "inputs".
        const apiKey = args.raw['api-key'];
        const message = problems.join('\n');
        return fail(apiKey ? message.replaceAll(apiKey, '***') : message, true);
    }
    const { runCommand } = await Promise.all(/* import() */[__webpack_require__.e(659), __webpack_require__.e(322)]).then(__webpack_require__.bind(__webpack_require__, 11322));
    try {
        return await runCommand(inputs, args, err);
    }
    catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return fail(message.replaceAll(inputs.apiKey, '***'));
    }
}


/***/ }),

/***/ 51936:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  hD: () => (/* binding */ ApiError),
  d: () => (/* binding */ StepdeckClient)
});

// UNUSED EXPORTS: AmbiguousRequestError, clockSkewMs, retryAfterMs

// EXTERNAL MODULE: ./node_modules/zod/v4/classic/schemas.js + 11 modules
var schemas = __webpack_require__(92857);
// EXTERNAL MODULE: ./contract/src/common.ts
var common = __webpack_require__(17079);
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
const pageNumber = (0,common/* queryInteger */.Py)('page', 0).default(0);
const pageLimit = (0,common/* queryInteger */.Py)('limit', 1).default(50);
const listTestsQuery = schemas/* object */.Ikc({
    limit: pageLimit,
    page: pageNumber,
    name: schemas/* string */.YjP().optional(),
    status: oneOrMany(common/* testStatus */.h5),
    tagIds: oneOrMany(common/* uuid */.uR),
    type: testTypeFilter.default('all'),
    testId: common/* uuid */.uR.optional(),
    /**
     * Extension of the spec (the console's tree loads its top level first): `true` lists only the
     * tests that sit in no directory. Filters, sort and pagination apply as without it; `false` or
     * absent changes nothing. Cannot be combined with `testId` (400).
     */
    topLevel: schemas/* enum */.k5n(['true', 'false'], { error: 'topLevel must be true or false' }).optional(),
    branch: common/* uuid */.uR.optional(),
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
    status: common/* testStatus */.h5.default('draft'),
    directory: schemas/* boolean */.zMY().default(false),
    parentTestId: common/* uuid */.uR.nullable().optional(),
    config: run_config/* runConfig */.aA.optional(),
    steps: stepInputList.optional(),
    tags: schemas/* array */.YOg(common/* uuid */.uR).optional(),
    vars: common/* jsonObject */.o$.nullable().optional(),
    parameters: common/* jsonObject */.o$.nullable().optional(),
    metadata: testMetadataInput.optional(),
    /** The table the test runs over, once per row (`{{data.<column>}}` in steps); null removes it. */
    dataSet: dataSet.nullable().optional(),
});
const updateTestData = schemas/* object */.Ikc({
    name: schemas/* string */.YjP().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters').optional(),
    status: common/* testStatus */.h5.optional(),
    directory: schemas/* boolean */.zMY().optional(),
    /**
     * Extension of the spec: moves the test (with its descendants) into this directory, or to the
     * top level when null. The spec's PUT offers no other way to move a test between directories.
     */
    parentTestId: common/* uuid */.uR.nullable().optional(),
    config: run_config/* runConfig */.aA.optional(),
    steps: stepInputList.optional(),
    tags: schemas/* array */.YOg(common/* uuid */.uR).optional(),
    vars: common/* jsonObject */.o$.nullable().optional(),
    parameters: common/* jsonObject */.o$.nullable().optional(),
    metadata: testMetadataInput.optional(),
    /** The table the test runs over, once per row (`{{data.<column>}}` in steps); null removes it. */
    dataSet: dataSet.nullable().optional(),
    editVersion: schemas/* union */.KCZ([schemas/* number */.aig().int(), schemas/* string */.YjP()]).optional(),
});
const testIds = schemas/* array */.YOg(common/* uuid */.uR, { error: 'testIds must be an array of UUIDs' }).min(1, 'at least one test ID');
const bulkUpdateStatusBody = schemas/* object */.Ikc({ testIds, status: common/* testStatus */.h5 });
const bulkUpdateTagsBody = schemas/* object */.Ikc({
    testIds,
    tagIds: schemas/* array */.YOg(common/* uuid */.uR, { error: 'tagIds must be an array of UUIDs' }),
});
const bulkDeleteBody = schemas/* object */.Ikc({ testIds });
const duplicateTestBody = schemas/* object */.Ikc({
    name: schemas/* string */.YjP().trim().min(1, 'must not be empty').max(128, 'must be at most 128 characters').optional(),
    status: common/* testStatus */.h5.optional(),
})
    .optional();
const createRevisionBody = schemas/* object */.Ikc({
    message: schemas/* string */.YjP({ error: 'message is required' }).trim().min(1, 'message must not be empty').max(1000),
});
const exportTestsBody = schemas/* object */.Ikc({
    testIds: schemas/* array */.YOg(common/* uuid */.uR).optional(),
    tagIds: schemas/* array */.YOg(common/* uuid */.uR).optional(),
    directoryId: common/* uuid */.uR.optional(),
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
    metadata: common/* jsonObject */.o$.nullable().optional(),
    condition: schemas/* unknown */.L5J().optional(),
});
/** The test item of `GET /v1/tests`. */
const testListItem = schemas/* object */.Ikc({
    id: common/* uuid */.uR,
    parentTestId: schemas/* string */.YjP().nullable(),
    projectId: schemas/* string */.YjP(),
    organizationId: schemas/* string */.YjP(),
    name: schemas/* string */.YjP(),
    status: common/* testStatus */.h5,
    directory: schemas/* boolean */.zMY(),
    config: common/* jsonObject */.o$,
    vars: common/* jsonObject */.o$.nullable(),
    parameters: common/* jsonObject */.o$.nullable(),
    metadata: common/* jsonObject */.o$,
    tags: schemas/* array */.YOg(schemas/* object */.Ikc({ id: schemas/* string */.YjP(), name: schemas/* string */.YjP() })),
    childrenCount: schemas/* number */.aig().int(),
    stepsCount: schemas/* number */.aig().int(),
    createdAt: schemas/* string */.YjP(),
    updatedAt: schemas/* string */.YjP(),
});
const listTestsResponse = schemas/* object */.Ikc({ children: schemas/* array */.YOg(testListItem), pagination: common/* pagination */.X$ });
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
    status: common/* testStatus */.h5.optional(),
    directory: schemas/* boolean */.zMY().optional(),
    config: common/* jsonObject */.o$.optional(),
    vars: common/* jsonObject */.o$.nullable().optional(),
    parameters: common/* jsonObject */.o$.nullable().optional(),
    metadata: schemas/* looseObject */._H3({ type: testType.optional(), description: schemas/* string */.YjP().optional() }).optional(),
    dataSet: schemas/* unknown */.L5J().optional(),
    tags: schemas/* array */.YOg(schemas/* string */.YjP()).optional(),
    steps: schemas/* array */.YOg(schemas/* unknown */.L5J()).optional(),
    files: schemas/* array */.YOg(schemas/* object */.Ikc({ filename: schemas/* string */.YjP(), content: schemas/* string */.YjP() })).optional(),
});
const exportedSharedStep = schemas/* looseObject */._H3({
    id: schemas/* string */.YjP(),
    name: schemas/* string */.YjP(),
    action: common/* jsonObject */.o$,
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
    action: common/* jsonObject */.o$,
    condition: common/* jsonObject */.o$.nullable(),
    metadata: common/* jsonObject */.o$.nullable(),
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
const testStepsResponse = (0,common/* dataOf */.qu)(schemas/* object */.Ikc({ steps: schemas/* array */.YOg(stepView) }));
const testStepResponse = (0,common/* dataOf */.qu)(schemas/* object */.Ikc({ step: stepView, children: schemas/* array */.YOg(stepView) }));
const fileAttachment = schemas/* object */.Ikc({
    filename: schemas/* string */.YjP(),
    content: schemas/* string */.YjP(),
    stepId: schemas/* string */.YjP(),
});
const testFilesResponse = (0,common/* dataOf */.qu)(schemas/* array */.YOg(fileAttachment));
const revision = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    message: schemas/* string */.YjP(),
    revisionType: schemas/* string */.YjP(),
    createdAt: schemas/* string */.YjP(),
});
const revisionResponse = (0,common/* dataOf */.qu)(revision);
const revisionsResponse = (0,common/* dataOf */.qu)(schemas/* array */.YOg(revision));
const revisionDetailResponse = (0,common/* dataOf */.qu)(schemas/* object */.Ikc({
    revision: schemas/* object */.Ikc({ id: schemas/* string */.YjP(), message: schemas/* string */.YjP(), createdAt: schemas/* string */.YjP() }),
    test: schemas/* object */.Ikc({ id: schemas/* string */.YjP(), name: schemas/* string */.YjP() }),
    steps: schemas/* array */.YOg(stepView),
}));
const duplicatedTestResponse = (0,common/* dataOf */.qu)(schemas/* object */.Ikc({ id: schemas/* string */.YjP(), name: schemas/* string */.YjP() }));
const importResponse = (0,common/* dataOf */.qu)(schemas/* object */.Ikc({
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
    action: common/* jsonObject */.o$,
    shared: schemas/* boolean */.zMY(),
    group: schemas/* boolean */.zMY(),
});
const sharedStepListResponse = schemas/* object */.Ikc({ data: schemas/* array */.YOg(sharedStep), pagination: common/* pagination */.X$ });
const sharedStepResponse = (0,common/* dataOf */.qu)(sharedStep);
/** A child of a shared group: `id` is the link id, `stepId` the child's canonical step. */
const sharedStepChild = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    stepId: schemas/* string */.YjP(),
    name: schemas/* string */.YjP(),
    action: common/* jsonObject */.o$,
    order: schemas/* number */.aig().int(),
});
const stepChildrenResponse = (0,common/* dataOf */.qu)(schemas/* object */.Ikc({ step: sharedStep, children: schemas/* array */.YOg(sharedStepChild) }));
const stepUsageResponse = (0,common/* dataOf */.qu)(schemas/* array */.YOg(schemas/* object */.Ikc({ id: schemas/* string */.YjP(), name: schemas/* string */.YjP() })));
const updatedStepResponse = (0,common/* dataOf */.qu)(schemas/* object */.Ikc({ id: schemas/* string */.YjP(), name: schemas/* string */.YjP(), action: common/* jsonObject */.o$ }));
const replacedChildrenResponse = (0,common/* dataOf */.qu)(schemas/* object */.Ikc({
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
    createdAt: common/* isoTimestamp */.yh,
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
    since: schemas/* object */.Ikc({ runId: schemas/* string */.YjP(), createdAt: common/* isoTimestamp */.yh }).nullable(),
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
    failingSince: schemas/* object */.Ikc({ runId: schemas/* string */.YjP(), createdAt: common/* isoTimestamp */.yh, commitSha: schemas/* string */.YjP().nullable() })
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
    expiresAt: common/* isoTimestamp */.yh.nullable(),
    createdBy: schemas/* string */.YjP(),
    createdAt: common/* isoTimestamp */.yh,
});
const testHistoryResponse = schemas/* object */.Ikc({
    data: schemas/* array */.YOg(testHistoryEntry),
    pagination: common/* pagination */.X$,
    summary: testHistorySummary,
    quarantine: testQuarantine.nullable(),
});
/** Query of `GET /v1/tests/:testId/history`. */
const testHistoryQuery = schemas/* object */.Ikc({
    limit: (0,common/* queryInteger */.Py)('limit', 1, 500).default(20),
    page: (0,common/* queryInteger */.Py)('page', 0).default(0),
    /** A branch name of the project (default: every branch). */
    branch: schemas/* string */.YjP().min(1, 'branch must not be empty').optional(),
    status: historyStatus.optional(),
    since: iso/* datetime */.w$({ offset: true, error: 'since must be an ISO 8601 date-time' }).optional(),
    /** How many latest results the summary looks at. */
    window: (0,common/* queryInteger */.Py)('window', 1, 1000).default(50),
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
    knownSince: schemas/* object */.Ikc({ runId: schemas/* string */.YjP(), createdAt: common/* isoTimestamp */.yh, commitSha: schemas/* string */.YjP().nullable() })
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
const runTriageResponse = (0,common/* dataOf */.qu)(runTriage);
/** `PUT /v1/tests/:testId/quarantine`. */
const quarantineBody = schemas/* object */.Ikc({
    reason: schemas/* string */.YjP({ error: 'reason is required' })
        .trim()
        .min(1, 'reason is required')
        .max(500, 'reason must be at most 500 characters'),
    owner: schemas/* string */.YjP().trim().min(1).max(200, 'owner must be at most 200 characters').optional(),
    expiresAt: iso/* datetime */.w$({ offset: true, error: 'expiresAt must be an ISO 8601 date-time' }).optional(),
});
const testQuarantineResponse = (0,common/* dataOf */.qu)(testQuarantine);
/** Where a test stands on a branch, derived from its latest results there. */
const testHealth = schemas/* object */.Ikc({
    testId: schemas/* string */.YjP(),
    /** Its name in its latest recorded run. */
    name: schemas/* string */.YjP(),
    lastRunId: schemas/* string */.YjP(),
    lastStatus: historyStatus,
    lastResultAt: common/* isoTimestamp */.yh,
    failingSince: schemas/* object */.Ikc({ runId: schemas/* string */.YjP(), createdAt: common/* isoTimestamp */.yh, commitSha: schemas/* string */.YjP().nullable() })
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
    createdAt: common/* isoTimestamp */.yh,
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
const testInsightsResponse = (0,common/* dataOf */.qu)(testInsights);
const testInsightsQuery = schemas/* object */.Ikc({
    /** A branch id or name (default: the project's default branch). */
    branch: schemas/* string */.YjP().min(1, 'branch must not be empty').optional(),
    limit: (0,common/* queryInteger */.Py)('limit', 1, 200).default(50),
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
    createdAt: common/* isoTimestamp */.yh,
    updatedAt: common/* isoTimestamp */.yh,
});
/** Item of `GET /console/v1/projects/:projectId/environments`. */
const environment = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    projectId: schemas/* string */.YjP(),
    name: schemas/* string */.YjP(),
    baseURL: schemas/* string */.YjP().nullable(),
    variables: schemas/* record */.g1P(schemas/* string */.YjP(), schemas/* string */.YjP()),
    secrets: schemas/* array */.YOg(environmentSecret),
    createdAt: common/* isoTimestamp */.yh,
    updatedAt: common/* isoTimestamp */.yh,
});
const environmentResponse = (0,common/* dataOf */.qu)(environment);
const environmentListResponse = (0,common/* dataOf */.qu)(schemas/* array */.YOg(environment));
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
const useLocatorResponse = (0,common/* dataOf */.qu)(useLocatorResult);

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
    decidedAt: common/* isoTimestamp */.yh.nullable(),
    createdAt: common/* isoTimestamp */.yh,
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
    changeIds: schemas/* array */.YOg(common/* uuid */.uR, { error: 'changeIds must be a list of visual change ids' })
        .min(1, 'changeIds must name at least one change; leave it out for all of the run')
        .max(500, 'changeIds takes at most 500 ids')
        .optional(),
})
    .optional();
const visualDecisionResponse = (0,common/* dataOf */.qu)(schemas/* object */.Ikc({ decision: schemas/* enum */.k5n(['approved', 'rejected']), changes: schemas/* array */.YOg(visualChange) }));
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
    approvedAt: common/* isoTimestamp */.yh,
    image: schemas/* string */.YjP(),
});
const visualBaselineListResponse = schemas/* object */.Ikc({ data: schemas/* array */.YOg(visualBaseline) });
const visualBaselineQuery = schemas/* object */.Ikc({ testId: common/* uuid */.uR.optional() });

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
const remoteRunSingle = schemas/* object */.Ikc({ runId: schemas/* string */.YjP(), status: common/* runStatus */.em });
const remoteRunSingleResponse = (0,common/* dataOf */.qu)(remoteRunSingle);
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
    status: common/* runStatus */.em,
    totalTests: schemas/* number */.aig().int(),
    message: schemas/* string */.YjP(),
    leftOut: schemas/* array */.YOg(leftOutTest).optional(),
});
const remoteRunManyResponse = (0,common/* dataOf */.qu)(remoteRunMany);
/** Either shape: `totalTests`/`message` are absent for a single leaf. */
const remoteRunResult = schemas/* object */.Ikc({
    runId: schemas/* string */.YjP(),
    status: common/* runStatus */.em,
    totalTests: schemas/* number */.aig().int().optional(),
    message: schemas/* string */.YjP().optional(),
    leftOut: schemas/* array */.YOg(leftOutTest).optional(),
});
const remoteRunResponse = (0,common/* dataOf */.qu)(remoteRunResult);
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
    status: common/* runStatus */.em,
    testId: schemas/* string */.YjP().nullable(),
    testRevisionId: schemas/* string */.YjP().nullable(),
    branchId: schemas/* string */.YjP(),
    testName: schemas/* string */.YjP().nullable(),
    branchName: schemas/* string */.YjP().nullable(),
    scheduleType: schemas/* string */.YjP().nullable(),
    /** The environment the run used, by name (additive); null for none. */
    environment: schemas/* string */.YjP().nullable().optional(),
    createdAt: common/* isoTimestamp */.yh,
    startedAt: common/* isoTimestamp */.yh.nullable(),
    completedAt: common/* isoTimestamp */.yh.nullable(),
    duration: schemas/* number */.aig().int().nullable(),
});
const testRunListResponse = schemas/* object */.Ikc({ data: schemas/* array */.YOg(testRun), pagination: common/* pagination */.X$ });
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
    status: common/* runStatus */.em,
    testName: schemas/* string */.YjP().nullable(),
    runName: schemas/* string */.YjP(),
    runId: schemas/* string */.YjP(),
    duration: schemas/* number */.aig().int(),
    completedAt: common/* isoTimestamp */.yh.nullable(),
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
    startedAt: common/* isoTimestamp */.yh.nullable(),
    completedAt: common/* isoTimestamp */.yh.nullable(),
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
    cancelledAt: common/* isoTimestamp */.yh.nullable(),
    report: runReport.nullable(),
    shards: schemas/* array */.YOg(runShard).optional(),
    batches: schemas/* array */.YOg(runBatch).optional(),
});
const testRunDetailResponse = (0,common/* dataOf */.qu)(testRunDetail);
/** `GET /v1/test-runs/latest`. */
const runSummary = schemas/* object */.Ikc({
    id: schemas/* string */.YjP(),
    name: schemas/* string */.YjP(),
    status: common/* runStatus */.em,
    createdAt: common/* isoTimestamp */.yh,
});
const latestRunResponse = (0,common/* dataOf */.qu)(runSummary.nullable());
/** `GET /v1/test-runs/stats`. */
const runStatistics = schemas/* object */.Ikc({
    totalRuns: schemas/* number */.aig().int(),
    successRate: schemas/* number */.aig().int(),
    avgDuration: schemas/* number */.aig().int(),
    lastRun: common/* isoTimestamp */.yh.nullable(),
    passed: schemas/* number */.aig().int(),
    failed: schemas/* number */.aig().int(),
    skipped: schemas/* number */.aig().int(),
});
const runStatisticsResponse = (0,common/* dataOf */.qu)(runStatistics);
/** `GET /v1/test-runs/:runId/artifacts` item. */
const runArtifact = schemas/* object */.Ikc({
    key: schemas/* string */.YjP(),
    label: schemas/* string */.YjP(),
    type: schemas/* string */.YjP(),
    url: schemas/* string */.YjP(),
    testName: schemas/* string */.YjP().optional(),
});
const runArtifactsResponse = (0,common/* dataOf */.qu)(schemas/* array */.YOg(runArtifact));
/** `GET /v1/test-runs/:runId/tests`. */
const runTestsResponse = (0,common/* dataOf */.qu)(schemas/* array */.YOg(schemas/* object */.Ikc({ testId: schemas/* string */.YjP(), testName: schemas/* string */.YjP() })));
/** `POST /v1/test-runs/:runId/cancel`. */
const cancelRun = schemas/* object */.Ikc({ success: schemas/* boolean */.zMY(), message: schemas/* string */.YjP() });
const cancelRunResponse = (0,common/* dataOf */.qu)(cancelRun);
/** Query of `GET /v1/test-runs`. */
const testRunListQuery = schemas/* object */.Ikc({
    limit: (0,common/* queryInteger */.Py)('limit', 1, 500).default(20),
    page: (0,common/* queryInteger */.Py)('page', 0).default(0),
    status: common/* runStatus */.em.optional(),
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

// EXTERNAL MODULE: ./node_modules/undici/index.js
var undici = __webpack_require__(46752);
;// CONCATENATED MODULE: ./src/client.ts



/**
 * The fields of `GET /v1/tests` items the trigger reads to expand tags and directories past
 * the 100-tests cap: the contract's item, narrowed (other fields pass through unchecked).
 */
const testListBriefResponse = schemas/* object */.Ikc({
    children: schemas/* array */.YOg(testListItem.pick({ id: true, directory: true, status: true }).loose()),
    pagination: common/* pagination */.X$,
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
        return this.#parse((0,common/* dataOf */.qu)(createdTest), body).data.id;
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


/***/ })

};
