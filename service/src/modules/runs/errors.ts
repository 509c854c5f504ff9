/**
 * The reason a run's AbortController is aborted with when a user cancels it (the cancel route
 * or the heartbeat seeing the `cancelled` status). Any other reason (the service shutting
 * down) leaves the run to recovery instead of treating it as cancelled.
 */
export class RunCancelledError extends Error {
  constructor() {
    super('Run cancelled');
    this.name = 'RunCancelledError';
  }
}

/** The service is shutting down: the run is handed back, not cancelled. */
export class RunnerShutdownError extends Error {
  constructor() {
    super('The service is shutting down');
    this.name = 'RunnerShutdownError';
  }
}
