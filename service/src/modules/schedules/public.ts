/**
 * What other modules may use of the schedules module: the tests module refuses to delete a
 * test an active schedule targets, the presets module names the schedules using a preset
 * (test/architecture.test.ts checks that nothing else of schedules/ is imported from outside).
 */
export { activeSchedulesReferencing } from './references.ts';
export { scheduleNames } from './repository.ts';
