/**
 * The redaction process of a run (started by redact-run.ts, as the run's own user when it has
 * one): reads one JSON request line from stdin (the secrets travel this way, never in argv,
 * the environment or a file), rewrites the run's outputs in place (redact-stream.ts), writes
 * its report as one JSON line to stdout and exits 0; on failure, exits 1 with the message on
 * stderr. Its stdin stays open while it works: when the process that started it dies, stdin
 * ends and it exits at once.
 */
import type { RedactRequest } from './redact-report.ts';
import { redactOutputs } from './redact-stream.ts';

let input = '';
let started = false;
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  if (started) return;
  input += chunk;
  const newline = input.indexOf('\n');
  if (newline === -1) return;
  started = true;
  let request: RedactRequest;
  try {
    request = JSON.parse(input.slice(0, newline)) as RedactRequest;
  } catch {
    process.stderr.write('unreadable request\n', () => process.exit(1));
    return;
  }
  input = '';
  redactOutputs(request).then(
    (report) => {
      process.stdout.write(`${JSON.stringify(report)}\n`, () => process.exit(0));
    },
    (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      process.stderr.write(`${message}\n`, () => process.exit(1));
    },
  );
});
// The parent died (or gave up): nothing waits for this work any more.
process.stdin.on('end', () => process.exit(2));
