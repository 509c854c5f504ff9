import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The Prometheus metrics of one app (its own registry: tests build many apps in one process).
 * Labels are bounded sets (route templates, statuses, outcomes): never ids, names or keys of
 * tenants.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  private readonly httpDuration: Histogram<'method' | 'route'>;
  private readonly runs: Counter<'status'>;
  private readonly runDuration: Histogram;
  private readonly webhookDeliveries: Counter<'outcome'>;
  private readonly webhookDuration: Histogram;
  private readonly smtpMessages: Counter<'outcome'>;
  private readonly rateLimited: Counter;
  private runnerSource: (() => { busy: number; slots: number } | undefined) | undefined;
  private pendingSource: (() => Promise<number>) | undefined;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.httpRequests = new Counter({
      name: 'stepdeck_http_requests_total',
      help: 'HTTP requests answered, by method, route template and status code',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: 'stepdeck_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by method and route template',
      labelNames: ['method', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.runs = new Counter({
      name: 'stepdeck_runs_total',
      help: 'Runs that ended in this process, by final status (completed or failed)',
      labelNames: ['status'],
      registers,
    });
    this.runDuration = new Histogram({
      name: 'stepdeck_run_duration_seconds',
      help: 'Duration of the runs that ended in this process',
      buckets: [1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200],
      registers,
    });
    const self = this;
    new Gauge({
      name: 'stepdeck_runs_pending',
      help: 'Runs waiting for a runner (all organizations)',
      registers,
      async collect() {
        if (self.pendingSource) this.set(await self.pendingSource());
      },
    });
    new Gauge({
      name: 'stepdeck_runner_slots_busy',
      help: 'Runs executing in this process',
      registers,
      collect() {
        this.set(self.runnerSource?.()?.busy ?? 0);
      },
    });
    new Gauge({
      name: 'stepdeck_runner_slots_total',
      help: 'Runs this process executes at a time (0 without a runner)',
      registers,
      collect() {
        this.set(self.runnerSource?.()?.slots ?? 0);
      },
    });
    this.webhookDeliveries = new Counter({
      name: 'stepdeck_webhook_deliveries_total',
      help: 'Webhook delivery attempts made by this process, by outcome (succeeded, retrying, failed)',
      labelNames: ['outcome'],
      registers,
    });
    this.webhookDuration = new Histogram({
      name: 'stepdeck_webhook_delivery_duration_seconds',
      help: 'Duration of webhook delivery attempts',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.smtpMessages = new Counter({
      name: 'stepdeck_smtp_messages_total',
      help: 'SMTP transactions, by outcome (accepted, refused, too_large, failed)',
      labelNames: ['outcome'],
      registers,
    });
    this.rateLimited = new Counter({
      name: 'stepdeck_rate_limited_total',
      help: 'Requests refused with 429 by the rate limiter',
      registers,
    });
  }

  httpRequest(method: string, route: string, status: number, seconds: number): void {
    this.httpRequests.inc({ method, route, status: String(status) });
    this.httpDuration.observe({ method, route }, seconds);
    if (status === 429) this.rateLimited.inc();
  }

  runEnded(status: 'completed' | 'failed', durationMs: number): void {
    this.runs.inc({ status });
    this.runDuration.observe(durationMs / 1000);
  }

  webhookAttempt(outcome: 'succeeded' | 'retrying' | 'failed', seconds: number): void {
    this.webhookDeliveries.inc({ outcome });
    this.webhookDuration.observe(seconds);
  }

  smtpMessage(outcome: string): void {
    this.smtpMessages.inc({ outcome });
  }

  /** Where the runner gauges read from (the runs module sets it). */
  observeRunner(source: () => { busy: number; slots: number } | undefined): void {
    this.runnerSource = source;
  }

  /** Where the pending-runs gauge reads from (a count query, run at scrape time). */
  observePending(source: () => Promise<number>): void {
    this.pendingSource = source;
  }
}
