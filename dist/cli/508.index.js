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
























/***/ })

};
