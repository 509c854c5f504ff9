export const id = 15;
export const ids = [15];
export const modules = {

/***/ 9015:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  K: () => (/* binding */ readInputs),
  run: () => (/* binding */ run)
});

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
    const { runConfig } = await Promise.all(/* import() */[__webpack_require__.e(857), __webpack_require__.e(508)]).then(__webpack_require__.bind(__webpack_require__, 57508));
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

// EXTERNAL MODULE: ./src/workflow-commands.ts
var workflow_commands = __webpack_require__(16137);
;// CONCATENATED MODULE: ./src/main.ts



async function readInputs(env = process.env) {
    const raw = Object.fromEntries(inputNames.map((name) => [name, (0,workflow_commands/* getInput */.V4)(name, env)]));
    // Masked before validation, so even a rejected key never reaches the log.
    if (raw['api-key'])
        (0,workflow_commands/* setSecret */.Pq)(raw['api-key']);
    return parseInputs(raw, { workflow: env.GITHUB_WORKFLOW, job: env.GITHUB_JOB, source: runSourceOf(env) });
}
/**
 * The action: inputs → trigger → wait → collect → report → outputs (src/action.ts). The
 * inputs are checked first with light modules only; the rest (HTTP client, @actions/*) loads
 * once they are valid.
 */
async function run(env = process.env) {
    let inputs;
    try {
        inputs = await readInputs(env);
    }
    catch (error) {
        const apiKey = (0,workflow_commands/* getInput */.V4)('api-key', env);
        const message = error instanceof Error ? error.message : String(error);
        (0,workflow_commands/* setFailed */.C1)(apiKey ? message.replaceAll(apiKey, '***') : message);
        return;
    }
    const { execute } = await Promise.all(/* import() */[__webpack_require__.e(857), __webpack_require__.e(734), __webpack_require__.e(864)]).then(__webpack_require__.bind(__webpack_require__, 47864));
    await execute(inputs, env);
}


/***/ })

};
