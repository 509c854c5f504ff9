/**
 * What other modules may use of the inboxes module: the runs module gives a run that waits for
 * email its own inbox key (test/architecture.test.ts checks that nothing else of inboxes/ is imported from outside).
 */
export { issueRunInboxAccess, type RunInboxAccess, usesEmailSteps } from './run-access.ts';
