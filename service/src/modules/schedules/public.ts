/**
 * What other modules may use of the schedules module: finding an organization's schedule (an
 * alert channel for one schedule's runs names it).
 */
export { findSchedule } from './repository.ts';
