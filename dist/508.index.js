export const id = 508;
export const ids = [508];
export const modules = {

/***/ 57508:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   runConfig: () => (/* reexport safe */ _run_config_js__WEBPACK_IMPORTED_MODULE_0__.aA)
/* harmony export */ });
/* harmony import */ var _run_config_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(34908);
/**
 * The wire contract of the Stepdeck API: zod schemas used by the service's routes and by
 * the action's client, so both sides agree on every field by construction.
 */



















/***/ }),

/***/ 34908:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   aA: () => (/* binding */ runConfig)
/* harmony export */ });
/* unused harmony exports healMode, resolveRunConfig */
/* harmony import */ var zod__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(92857);

/** The spec's "Run configuration": accepted by create, update and remote-run. */
const runConfig = zod__WEBPACK_IMPORTED_MODULE_0__/* .object */ .Ikc({
    use: zod__WEBPACK_IMPORTED_MODULE_0__/* .object */ .Ikc({
        browserName: zod__WEBPACK_IMPORTED_MODULE_0__/* ["enum"] */ .k5n(['chromium', 'webkit', 'firefox']).optional(),
        baseURL: zod__WEBPACK_IMPORTED_MODULE_0__/* .string */ .YjP().optional(),
        trace: zod__WEBPACK_IMPORTED_MODULE_0__/* ["enum"] */ .k5n(['off', 'on', 'retain-on-failure', 'on-first-retry']).optional(),
        video: zod__WEBPACK_IMPORTED_MODULE_0__/* ["enum"] */ .k5n(['off', 'on', 'retain-on-failure', 'on-first-retry']).optional(),
        screenshot: zod__WEBPACK_IMPORTED_MODULE_0__/* ["enum"] */ .k5n(['off', 'on', 'only-on-failure']).optional(),
        actionTimeout: zod__WEBPACK_IMPORTED_MODULE_0__/* .number */ .aig().int().min(0).max(3_600_000).optional(),
        navigationTimeout: zod__WEBPACK_IMPORTED_MODULE_0__/* .number */ .aig().int().min(0).max(3_600_000).optional(),
        headless: zod__WEBPACK_IMPORTED_MODULE_0__/* .boolean */ .zMY().optional(),
    })
        .loose()
        .optional(),
    retries: zod__WEBPACK_IMPORTED_MODULE_0__/* .number */ .aig().int().min(0).max(10).optional(),
    timeout: zod__WEBPACK_IMPORTED_MODULE_0__/* .number */ .aig().int().min(0).max(7_200_000).optional(),
    workers: zod__WEBPACK_IMPORTED_MODULE_0__/* .number */ .aig().int().min(1).max(64).optional(),
    repeatEach: zod__WEBPACK_IMPORTED_MODULE_0__/* .number */ .aig().int().min(1).max(100).optional(),
    /**
     * A step whose locator finds nothing (or several): `suggest` (default) records the page's
     * closest elements, `retry` also runs the step once more with the best one (the result
     * says healed), `off` neither. Additive.
     */
    heal: zod__WEBPACK_IMPORTED_MODULE_0__/* ["enum"] */ .k5n(['off', 'suggest', 'retry']).optional(),
    viewport: zod__WEBPACK_IMPORTED_MODULE_0__/* .object */ .Ikc({
        width: zod__WEBPACK_IMPORTED_MODULE_0__/* .number */ .aig().int().min(1).max(10_000).optional(),
        height: zod__WEBPACK_IMPORTED_MODULE_0__/* .number */ .aig().int().min(1).max(10_000).optional(),
    })
        .optional(),
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
    };
}


/***/ })

};
