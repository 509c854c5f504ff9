import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { timeAxisRange } from '../lib/chart-range.ts';
import './Chart.css';

/**
 * A uPlot chart (time on x, in seconds since the epoch, one point per bucket) with a text
 * summary for screen readers. The drawn x range is written to `data-x-min`/`data-x-max`
 * (seconds) so that tests can check what the axis spans.
 */
export function Chart(props: {
  title: string;
  summary: string;
  data: uPlot.AlignedData;
  series: Array<{ label: string; stroke: string; fill?: string; value?: (v: number | null) => string }>;
  yLabel: string;
  /** Width of one x bucket in seconds (a day by default): the axis is padded by half of it. */
  bucketSeconds?: number;
}) {
  const host = useRef<HTMLDivElement>(null);
  const bucketSeconds = props.bucketSeconds ?? 86_400;
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const xs = props.data[0] as ArrayLike<number>;
    const chart = new uPlot(
      {
        width: Math.max(320, element.clientWidth || 600),
        height: 220,
        series: [
          {},
          ...props.series.map((series) => ({
            label: series.label,
            stroke: series.stroke,
            // A single bucket has no line to draw: show the points.
            points: { show: xs.length < 32 },
            ...(series.fill ? { fill: series.fill } : {}),
            ...(series.value ? { value: (_u: uPlot, v: number | null) => series.value?.(v) ?? '' } : {}),
          })),
        ],
        axes: [{}, { label: props.yLabel }],
        // uPlot's automatic range for one x value (min = max) spans years: set it from the data.
        scales: { x: { time: true, range: () => timeAxisRange(xs, bucketSeconds) } },
        hooks: {
          setScale: [
            (u, key) => {
              if (key !== 'x') return;
              element.dataset.xMin = String(u.scales.x?.min ?? '');
              element.dataset.xMax = String(u.scales.x?.max ?? '');
            },
          ],
        },
      },
      props.data,
      element,
    );
    element.dataset.xMin = String(chart.scales.x?.min ?? '');
    element.dataset.xMax = String(chart.scales.x?.max ?? '');
    return () => chart.destroy();
  }, [props.data, props.series, props.yLabel, bucketSeconds]);
  return (
    <figure className="chart">
      <figcaption>{props.title}</figcaption>
      <div ref={host} role="img" aria-label={`${props.title}: ${props.summary}`} />
    </figure>
  );
}
