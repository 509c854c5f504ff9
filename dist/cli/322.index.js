export const id = 322;
export const ids = [322];
export const modules = {

/***/ 11322:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  runCommand: () => (/* binding */ runCommand)
});

// UNUSED EXPORTS: jsonDocument, summaryText

// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(76760);
var external_node_path_default = /*#__PURE__*/__webpack_require__.n(external_node_path_);
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
const results_isFailedTest = (test) => test.status !== 'passed' && test.status !== 'skipped' && test.status !== 'flaky';
const results_isFlakyTest = (test) => !results_isFailedTest(test) && test.status !== 'skipped' && (test.flaky || test.status === 'flaky');
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
    stats.flaky = tests.filter(results_isFlakyTest).length;
    // Failed first, then flaky, then the rest (stable: report order within each group).
    const rank = (test) => (results_isFailedTest(test) ? 0 : results_isFlakyTest(test) ? 1 : 2);
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
    const failedNames = new Set(results.tests.filter(results_isFailedTest).map((test) => test.name));
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

;// CONCATENATED MODULE: ./src/report/markdown.ts



const icons = {
    passed: '✅',
    failed: '❌',
    error: '💥',
    cancelled: '🚫',
    timeout: '⏱️',
};
const markdown_formatDuration = (ms) => {
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
const markdown_cell = (value) => value
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
const markdown_commentMaxChars = 65_000;
/** A summary's budget: 1 MiB, counted in characters of up to 4 bytes each, less a margin. */
const markdown_summaryMaxChars = 250_000;
const tableHead = (/* unused pure expression or super */ null && (['| Test | Status | Failing step | Reason | Duration | Run |', '|---|---|---|---|---|---|']));
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
        ? `❌ ${markdown_cell(test.status)}`
        : flaky
            ? '⚠️ flaky'
            : test.status === 'skipped'
                ? '⏭️ skipped'
                : // Healed is never shown as a plain pass: the step passed only with another locator.
                    `✅ ${markdown_cell(healedText(test) ?? test.status)}`;
    const carried = (test.carriedFromAttempt ? ` (attempt ${test.carriedFromAttempt}, carried over)` : '') +
        (failed && test.triage ? ` · ${triageText[test.triage]}` : '');
    const step = failed ? failingStepText(test) : '';
    const why = failed || flaky ? reason(test) : '';
    return `| ${markdown_cell(test.name)} | ${status}${carried} | ${markdown_cell(step)} | ${markdown_cell(why)} | ${markdown_formatDuration(test.durationMs)} | ${runUrl ? `[run](${runUrl})` : ''} |`;
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
function markdown_resultsMarkdown(results, context = {}) {
    const { stats } = results;
    const maxChars = context.maxChars ?? markdown_commentMaxChars;
    const head = [
        `### ${icons[results.status] ?? ''} ${context.title ?? 'Stepdeck'}: ${results.status}`,
        '',
        `**${stats.passed}** passed · **${stats.failed}** failed · **${stats.skipped}** skipped · ` +
            (stats.flaky > 0 ? `**${stats.flaky}** flaky · ` : '') +
            `**${stats.total}** total · ${markdown_formatDuration(results.durationMs)}` +
            (results.carriedOver ? ` · **${results.carriedOver}** carried over from an earlier attempt` : ''),
        ...(results.note ? ['', `**${markdown_cell(results.note.replace(/^./, (c) => c.toUpperCase()))}.**`] : []),
        ...triageLine(results),
        ...visualLines(results, maxChars),
        '',
        results.runs.map((run) => `[run ${run.runId.slice(0, 8)}](${run.url}) (${run.status})`).join(' · ') +
            (context.artifactUrl ? ` · [artifacts](${context.artifactUrl})` : ''),
    ];
    for (const run of results.runs)
        if (run.runnerError)
            head.push('', `> Runner error in run ${run.runId.slice(0, 8)}: ${markdown_cell(cut(run.runnerError, 2000))}`);
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
        const line = `- ${markdown_cell(change.testName)}: ${what}`;
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

;// CONCATENATED MODULE: ./src/cli-progress.ts

/** CircleCI kills a job after 10 minutes without output; other CIs have such limits too. */
const progressEveryMs = 60_000;
/**
 * The waiter's `onPoll` for the CLI: a line when a run's status or counts change, and at least
 * one every minute while nothing does (status, elapsed time, counts when the service has them),
 * so a no-output timeout never kills a job that is only waiting.
 */
function progressReporter(log, now = Date.now) {
    const start = now();
    let last = '';
    let lastAt = Number.NEGATIVE_INFINITY;
    return (runs) => {
        const line = runs
            .map((run) => {
            const counts = run.stats
                ? ` (${run.stats.passed} passed, ${run.stats.failed} failed of ${run.stats.total})`
                : '';
            return `${run.id.slice(0, 8)} ${run.status}${counts}`;
        })
            .join(', ');
        const at = now();
        if (line === last && at - lastAt < progressEveryMs)
            return;
        log(`[${new Date(at).toISOString()}] ${line}, ${markdown_formatDuration(at - start)} elapsed`);
        last = line;
        lastAt = at;
    };
}

// EXTERNAL MODULE: external "node:os"
var external_node_os_ = __webpack_require__(48161);
var external_node_os_default = /*#__PURE__*/__webpack_require__.n(external_node_os_);
;// CONCATENATED MODULE: ./src/cli-signals.ts

const signals = ['SIGINT', 'SIGTERM'];
/**
 * While the CLI waits, Ctrl-C or a CI system's SIGTERM would leave the remote run running on
 * the service (holding a runner slot and the test's one active run): on either signal the runs
 * it started are cancelled, as the action's post step does, then the process exits with the
 * conventional code. A second signal during the cancel exits at once. Returns the remover.
 */
function cancelOnInterrupt(client, options) {
    let interrupted = false;
    const handler = (signal) => {
        const code = 128 + ((external_node_os_default()).constants.signals[signal] ?? 0);
        if (interrupted)
            return options.exit(code);
        interrupted = true;
        void cancelAll(client, options.runIds(), options.timeoutMs ?? 10_000).then((outcome) => {
            options.log(`stepdeck: interrupted by ${signal}: ${outcome}`);
            options.exit(code);
        });
    };
    for (const signal of signals)
        process.on(signal, handler);
    return () => {
        for (const signal of signals)
            process.off(signal, handler);
    };
}
async function cancelAll(client, runIds, timeoutMs) {
    if (runIds.length === 0)
        return 'the trigger had not answered yet, no run to cancel';
    const cancelled = [];
    const failed = [];
    const attempts = runIds.map(async (runId) => {
        try {
            await client.cancel(runId);
            cancelled.push(runId);
        }
        catch (error) {
            failed.push(`${runId} (${error.message})`);
        }
    });
    let timer;
    const timedOut = new Promise((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([Promise.all(attempts), timedOut]);
    clearTimeout(timer);
    const pending = runIds.filter((id) => !cancelled.includes(id) && !failed.some((f) => f.startsWith(id)));
    const parts = [
        cancelled.length > 0 && `cancelled ${plural(cancelled.length, 'run')} ${cancelled.join(', ')}`,
        failed.length > 0 && `could not cancel ${failed.join(', ')}`,
        pending.length > 0 && `no answer within ${timeoutMs / 1000} s to cancelling ${pending.join(', ')}`,
    ];
    return parts.filter(Boolean).join('; ');
}
const plural = (count, word) => (count === 1 ? word : `${word}s`);

// EXTERNAL MODULE: ./src/client.ts + 8 modules
var src_client = __webpack_require__(51936);
;// CONCATENATED MODULE: ./src/triage.ts

/**
 * Each failed test of the results classed by the service (`GET /v1/test-runs/:runId/triage`):
 * new, known (failing the same way on the base branch), flaky or quarantined. A service
 * without triage, or a failing lookup, leaves the results as they were (one line logged).
 */
async function withTriage(client, results, log) {
    const runIds = [...new Set(results.tests.filter(results_isFailedTest).map((test) => test.runId))];
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
            return found && results_isFailedTest(test)
                ? { ...test, triage: found.triage, ...(found.reason ? { quarantineReason: found.reason } : {}) }
                : test;
        }),
    };
}
/** Failed tests whose test is in quarantine: reported, but not failing the step. */
const quarantinedFailures = (results) => results.tests.filter((test) => results_isFailedTest(test) && test.triage === 'quarantined');
/** Failed tests not known to fail elsewhere (without triage, every failure counts as new). */
const newFailures = (results) => results.tests.filter((test) => results_isFailedTest(test) && (test.triage === undefined || test.triage === 'new'));
/**
 * The outcome `fail-on` judges: a run failed only by quarantined tests counts as passed (the
 * run's own status, the report and the webhooks still say failed).
 */
function gatingStatus(results) {
    if (results.status !== 'failed')
        return results.status;
    const failed = results.tests.filter(results_isFailedTest);
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
const visual_visualReviewUrl = (runUrl) => `${runUrl}/visual`;
const visual_visualChangesOf = (results) => results.visualChanges ?? [];
/**
 * `2 visual changes await review (1 changed, 1 new): <review page>` (a page per run), or
 * nothing when every screenshot matched its baseline.
 */
function visualChangesLine(results) {
    const changes = visual_visualChangesOf(results);
    if (changes.length === 0)
        return undefined;
    const changed = changes.filter((change) => change.status === 'changed').length;
    const pages = results.runs
        .filter((run) => changes.some((change) => change.runId === run.runId))
        .map((run) => visual_visualReviewUrl(run.url));
    const one = changes.length === 1;
    return (`${changes.length} visual ${one ? 'change awaits' : 'changes await'} review ` +
        `(${changed} changed, ${changes.length - changed} new): ${pages.join(', ')}`);
}
/** The step fails on visual changes only with `visual-changes: fail`, while any awaits review. */
const failsOnVisualChanges = (results, mode) => mode === 'fail' && visual_visualChangesOf(results).length > 0;

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
            'visual-changes': String(visual_visualChangesOf(results).length),
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

;// CONCATENATED MODULE: ./src/report/failure.ts

/**
 * A failed test in the user's words, for every surface (summary, comment, annotations, JUnit,
 * CLI): which step failed and why. Uses the service's step-level fields when it sends them and
 * degrades to errorMessage/errorLocation when it does not (older services).
 */
/** Cuts `text` to `max` characters, saying how much was cut. */
function failure_cut(text, max) {
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
const failure_failingStepText = (test) => {
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
function failure_healedText(test) {
    if (!test.healed?.length || results_isFailedTest(test))
        return null;
    const used = test.healed.map((step) => `step ${step.step} used ${step.locator}`).join(', ');
    return `${test.status} (healed: ${used})`;
}
/**
 * The one-line reason: the failing locator and the closest element now, else
 * `expected "Bye Ada", received "Hello Ada"`, else the message's first line.
 */
function failure_reason(test, max = 160) {
    if (test.locatorHint)
        return failure_cut(oneLine(locatorHintText(test.locatorHint)), max);
    const values = expectation(test);
    if (values)
        return failure_cut(oneLine(`expected ${failure_cut(values.expected, 70)}${values.received !== null ? `, received ${failure_cut(values.received, 70)}` : ''}`), max);
    const first = (test.errorMessage ?? '')
        .split('\n')
        .map((line) => line.trim())
        .find(Boolean);
    if (first)
        return failure_cut(oneLine(first.replace(/^Error:\s*/, '')), max);
    return isFlaky(test) ? 'passed on a retry' : test.status;
}
const isFlaky = (test) => test.flaky || test.status === 'flaky';
/** `test › step path`: the title of a failure everywhere. */
function failure_failureTitle(test) {
    const step = failingStep(test);
    return step ? `${test.name} › ${step.path}` : test.name;
}
/**
 * The full user-facing text of a failure: the service's message, preceded by the failing step
 * and the expectation when the message does not already say them.
 */
function failure_fullMessage(test) {
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

// EXTERNAL MODULE: ./node_modules/@actions/core/lib/core.js + 11 modules
var lib_core = __webpack_require__(91659);
;// CONCATENATED MODULE: ./src/rerun.ts



/**
 * Re-run only what failed: every attempt uploads a small results artifact; attempt N > 1 reads
 * the newest earlier attempt's one and triggers only the tests that failed or did not finish.
 */
const resultsFileName = 'stepdeck-results.json';
/** Artifact names allow no `/ \ : < > | * ? "`; the comment key tells matrix entries apart. */
const resultsArtifactPrefix = (commentKey) => `stepdeck-results-${commentKey.replace(/[/\\:<>|*?"\s]+/g, '_')}-`;
const resultsArtifactName = (commentKey, attempt) => `${resultsArtifactPrefix(commentKey)}${attempt}`;
const rerun_runAttempt = (env) => {
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
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, resultsFileName);
    fs.writeFileSync(file, JSON.stringify(content));
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
    const attempt = rerun_runAttempt(env);
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
        fs.mkdirSync(options.dir, { recursive: true });
        const { DefaultArtifactClient } = await Promise.all(/* import() */[__webpack_require__.e(351), __webpack_require__.e(220)]).then(__webpack_require__.bind(__webpack_require__, 67220));
        const findBy = { token: options.token, workflowRunId, repositoryOwner: owner, repositoryName: repo };
        await new DefaultArtifactClient().downloadArtifact(newest.id, { path: options.dir, findBy });
        const parsed = JSON.parse(fs.readFileSync(path.join(options.dir, resultsFileName), 'utf8'));
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
;// CONCATENATED MODULE: ./src/report/aggregate.ts



/** The shared part of a comment key: up to its last `/` (the key itself without one). */
const aggregate_aggregateGroup = (key) => (key.includes('/') ? key.slice(0, key.lastIndexOf('/')) : key);
const safe = (text) => text.replace(/--+>?/g, '-');
const aggregateMarker = (group) => `<!-- stepdeck-aggregate: ${safe(group)} -->`;
const statePattern = /<!-- stepdeck-aggregate-state: ([A-Za-z0-9_-]+) -->/;
function aggregate_aggregateRow(results, context) {
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
const worstFirst = (/* unused pure expression or super */ null && (['error', 'timeout', 'failed', 'cancelled', 'passed']));
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
async function aggregate_upsertAggregateRow(options) {
    const { getOctokit } = await __webpack_require__.e(/* import() */ 351).then(__webpack_require__.bind(__webpack_require__, 61351));
    const octokit = getOctokit(options.token);
    const { owner, repo, number } = options.pr;
    const marker = aggregateMarker(options.group);
    const settleMs = options.settleMs ?? 2000;
    const maxTries = options.maxTries ?? 8;
    const own = { ...options.row, nonce: randomUUID(), writtenAt: Date.now() };
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

;// CONCATENATED MODULE: ./src/report/comment.ts

/** The pull request of a pull_request(_target) event, read from GITHUB_EVENT_PATH; undefined otherwise. */
function comment_pullRequestFromEnv(env = process.env) {
    const eventName = env.GITHUB_EVENT_NAME ?? '';
    if (!eventName.startsWith('pull_request') || !env.GITHUB_EVENT_PATH || !env.GITHUB_REPOSITORY)
        return undefined;
    let event;
    try {
        event = JSON.parse(fs.readFileSync(env.GITHUB_EVENT_PATH, 'utf8'));
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
async function comment_upsertComment(options) {
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
        const failures = tests.filter(results_isFailedTest).length;
        const skipped = tests.filter((test) => test.status === 'skipped').length;
        const cases = tests.map((test) => {
            const open = `    <testcase classname="stepdeck" name="${xml(test.name)}" time="${seconds(test.durationMs)}"`;
            if (test.status === 'skipped')
                return `${open}>\n      <skipped/>\n    </testcase>`;
            if (results_isFlakyTest(test))
                return `${open}>\n      <system-out>${xml(`flaky: passed on a retry. ${failure_reason(test)}`)}</system-out>\n    </testcase>`;
            if (!results_isFailedTest(test))
                return `${open}/>`;
            // The attribute is the short reason (one line, what CI report viewers list); the body
            // holds the full user-facing message, then Playwright's own text when the service sent it.
            const message = `${failure_failureTitle(test)}: ${failure_reason(test)}`;
            const body = [
                failure_fullMessage(test),
                test.errorDetail ? `\n--- Playwright output ---\n${failure_cut(test.errorDetail, 20_000)}` : '',
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
    const failures = results.tests.filter(results_isFailedTest).length;
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
        core.info('No $GITHUB_STEP_SUMMARY: skipping the job summary');
        return false;
    }
    await core.summary.addRaw(markdown).write();
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
            core.error(message, properties);
    if (inputs.prComment === 'off')
        return;
    const pr = pullRequestFromEnv(env);
    if (!pr)
        return;
    if (!inputs.githubToken) {
        core.warning('No github-token: skipping the PR comment');
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
                log: core.info,
            })
            : await upsertComment({
                token: inputs.githubToken,
                pr,
                key: inputs.commentKey,
                markdown,
                mode: inputs.prComment,
            });
        if (result.kind === 'fallback')
            core.warning(`Could not comment: ${result.reason}. The results:\n${markdown}`);
        else if (result.kind === 'skipped')
            core.info(`PR comment not written: ${result.reason}`);
        else
            core.info(`PR comment ${result.kind}: ${result.url}`);
    }
    catch (error) {
        core.warning(`Could not comment on the pull request: ${error.message}`);
    }
}

;// CONCATENATED MODULE: ./src/trigger.ts

/** The spec's cap of active tests per remote run. */
const maxTestsPerRun = 100;
const overCap = (error) => error instanceof src_client/* ApiError */.hD && error.status === 400 && /\b100\b/.test(error.message);
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
            if (!(error instanceof src_client/* ApiError */.hD && error.status === 409))
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

// EXTERNAL MODULE: ./contract/src/common.ts
var common = __webpack_require__(17079);
;// CONCATENATED MODULE: ./src/wait.ts

const isTerminal = (status) => common/* terminalRunStatuses */.s$.includes(status);
const sleepReal = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * Polls every unfinished run once per interval (one GET per run and poll) until all are
 * terminal or the wall-clock deadline passes; at the deadline the unfinished runs are cancelled.
 */
async function waitForRuns(client, runIds, options) {
    const now = options.now ?? Date.now;
    const sleep = options.sleep ?? sleepReal;
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

;// CONCATENATED MODULE: ./src/cli-run.ts














/** Outputs that are counts: numbers in the CLI's JSON (the action's outputs are strings by nature). */
const numericOutputs = [
    'passed',
    'failed',
    'skipped',
    'flaky',
    'total',
    'carried-over',
    'duration-ms',
    'new-failures',
    'visual-changes',
];
/** The CLI's JSON document: the action's outputs with counts as numbers and `results` as an object. */
function jsonDocument(outputs) {
    const document = { ...outputs };
    for (const name of numericOutputs)
        if (name in outputs)
            document[name] = Number(outputs[name]);
    if (outputs.results !== undefined)
        document.results = JSON.parse(outputs.results);
    return document;
}
/** `stepdeck run` with valid inputs: trigger → wait → collect → print. */
async function runCommand(inputs, args, err) {
    const print = (text) => process.stdout.write(`${text}\n`);
    const client = new src_client/* StepdeckClient */.d({ ...inputs, log: err });
    let runIds = [];
    const stopCancelling = cancelOnInterrupt(client, {
        runIds: () => runIds,
        log: (line) => {
            err(line);
            if (args.json)
                print(JSON.stringify({ status: 'error', error: line.replace(/^stepdeck: /, '') }));
        },
        exit: (code) => process.exit(code),
    });
    try {
        const triggered = await trigger(client, inputs, err);
        runIds = triggered.runs.map((run) => run.runId);
        const runUrls = runIds.map((id) => runUrl(inputs.baseUrl, inputs.projectId, id));
        err(`Started ${runUrls.join(', ')}`);
        if (!inputs.wait) {
            // `read -r RUN_ID RUN_URL < <(stepdeck run --no-wait …)`: one "<id> <url>" line per run.
            if (args.json)
                print(JSON.stringify(jsonDocument(outputsFor({ runIds, runUrls }))));
            else
                print(runIds.map((id, index) => `${id} ${runUrls[index]}`).join('\n'));
            return 0;
        }
        const waited = await waitForRuns(client, runIds, {
            timeoutMs: inputs.timeoutMs,
            pollIntervalMs: inputs.pollIntervalMs,
            log: err,
            onPoll: progressReporter(err),
        });
        // The runs have ended: nothing left to cancel on a signal.
        stopCancelling();
        const results = await withTriage(client, mergeRuns(waited.runs, {
            ...inputs,
            timedOut: waited.timedOut,
            unfinished: waited.unfinished,
        }), err);
        if (results.note)
            err(`stepdeck: ${results.status}: ${results.note}`);
        const dir = external_node_path_default().resolve(args.artifactsDir);
        const collected = await collectArtifacts(client, waited.runs, results, {
            dir,
            mode: inputs.artifacts,
            log: err,
        });
        const junitPath = writeJunit(results, dir);
        const outputs = outputsFor({
            runIds,
            runUrls,
            results,
            reportPath: collected.reportPath,
            junitPath,
            artifactsPath: dir,
        });
        if (args.json)
            print(JSON.stringify(jsonDocument(outputs)));
        else
            print(summaryText(results, { runUrls, dir, junitPath }));
        const quarantined = quarantineLine(results);
        if (quarantined)
            err(quarantined);
        const visual = visualChangesLine(results);
        if (visual && inputs.visualChanges !== 'ignore')
            err(`stepdeck: ${visual}`);
        const failed = failsStep(gatingStatus(results), inputs.failOn) || failsOnVisualChanges(results, inputs.visualChanges);
        return failed ? 1 : 0;
    }
    finally {
        stopCancelling();
    }
}
/** The readable result on stdout (without --json). */
function summaryText(results, where) {
    const { stats } = results;
    return [
        `Status: ${results.status}  (${stats.passed} passed, ${stats.failed} failed, ${stats.skipped} skipped, ` +
            (stats.flaky > 0 ? `${stats.flaky} flaky, ` : '') +
            `${stats.total} total, ${markdown_formatDuration(results.durationMs)})` +
            (results.note ? `: ${results.note}` : ''),
        ...results.tests.map((test) => {
            if (results_isFlakyTest(test))
                return `  ~ ${test.name} (flaky: passed on a retry)`;
            const healed = failure_healedText(test);
            if (healed)
                return `  ✓ ${test.name}: ${healed}`;
            if (!results_isFailedTest(test))
                return `  ${test.status === 'skipped' ? '-' : '✓'} ${test.name}`;
            const step = failure_failingStepText(test);
            const triage = test.triage ? ` [${test.triage}]` : '';
            const indent = (text) => text.replace(/\n/g, '\n        ');
            const why = failure_reason(test, 300);
            return [
                `  ✗ ${test.name}${triage}`,
                step && `      step: ${step}`,
                `      ${why}`,
                // A one-line message is already the reason: said once.
                test.errorMessage?.trim() !== why &&
                    test.errorMessage &&
                    `      ${indent(failure_cut(test.errorMessage, 2000))}`,
            ]
                .filter(Boolean)
                .join('\n');
        }),
        ...[visualChangesLine(results)].filter((line) => line !== undefined).map((line) => `Visual: ${line}`),
        `Run: ${where.runUrls.join(', ')}`,
        `Artifacts: ${where.dir}`,
        `JUnit: ${where.junitPath}`,
    ].join('\n');
}


/***/ })

};
