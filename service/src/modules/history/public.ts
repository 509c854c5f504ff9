/**
 * What other modules may use of the history module: the failure fingerprint (a pure
 * function) and the classes of a failure. Its tables are read and written only here.
 */
export { type FailureShape, fingerprintOf } from './fingerprint.ts';
export { historyStatusOf } from './recording.ts';
