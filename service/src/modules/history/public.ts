/**
 * What other modules may use of the history module: the failure fingerprint (a pure
 * function), the classes of a failure, and a run's triage (each failure: new, known, flaky or
 * quarantined). Its tables are read and written only here.
 */
export { type FailureShape, fingerprintOf } from './fingerprint.ts';
export { historyStatusOf } from './recording.ts';
export { triageOfRun } from './triage.ts';
