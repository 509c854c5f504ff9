export const id = 508;
export const ids = [508];
export const modules = {

/***/ 57508:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   runConfig: () => (/* reexport safe */ _run_config_js__WEBPACK_IMPORTED_MODULE_0__.aA)
/* harmony export */ });
/* harmony import */ var _run_config_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(30386);
/**
 * The wire contract of the Stepdeck API: zod schemas used by the service's routes and by
 * the action's client, so both sides agree on every field by construction.
 */
























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


/***/ })

};
