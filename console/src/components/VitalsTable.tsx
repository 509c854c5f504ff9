import type { RunStepResult, StepVitals } from '@stepdeck/contract';

/** ms as whole milliseconds, or a dash where the page gave no value (INP without interaction). */
const ms = (value: number | null) => (value === null ? '—' : `${Math.round(value)} ms`);

/**
 * The Web Vitals a test's `measureVitals` / `assertVitals` steps measured, one row per step:
 * a table with a caption and column headers, so a screen reader names each value.
 */
export function VitalsTable(props: { testName: string; vitals: StepVitals[]; steps: RunStepResult[] }) {
  const stepName = (stepId: string) => props.steps.find((step) => step.stepId === stepId)?.name ?? stepId;
  return (
    <table className="vitals" data-testid="vitals">
      <caption>Web Vitals of {props.testName}</caption>
      <thead>
        <tr>
          <th scope="col">Step</th>
          <th scope="col">
            <abbr title="Largest Contentful Paint">LCP</abbr>
          </th>
          <th scope="col">
            <abbr title="Cumulative Layout Shift">CLS</abbr>
          </th>
          <th scope="col">
            <abbr title="Interaction to Next Paint">INP</abbr>
          </th>
          <th scope="col">
            <abbr title="Total Blocking Time">TBT</abbr>
          </th>
          <th scope="col">
            <abbr title="First Contentful Paint">FCP</abbr>
          </th>
          <th scope="col">
            <abbr title="Time to First Byte">TTFB</abbr>
          </th>
          <th scope="col">Load</th>
        </tr>
      </thead>
      <tbody>
        {props.vitals.map((vitals, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a step measured twice (a retried group) has one id
          <tr key={`${vitals.stepId}-${index}`}>
            <th scope="row">
              {vitals.label ?? stepName(vitals.stepId)}
              <div className="muted">{vitals.url}</div>
            </th>
            <td>{ms(vitals.lcpMs)}</td>
            <td>{vitals.cls.toFixed(3)}</td>
            <td>{ms(vitals.inpMs)}</td>
            <td>{ms(vitals.tbtMs)}</td>
            <td>{ms(vitals.fcpMs)}</td>
            <td>{ms(vitals.ttfbMs)}</td>
            <td>{ms(vitals.loadMs)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
