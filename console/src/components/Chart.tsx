import { format } from 'date-fns';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { countAxisRange, dayTicks, timeAxisRange } from '../lib/chart-range.ts';
import './Chart.css';

const daySeconds = 86_400;
/** Tick steps of a count axis: 1, 2, 5, 10, 20, 50… (never 0.5 runs). */
const wholeSteps = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000];

/**
 * A uPlot chart (time on x, in seconds since the epoch, one point per day) with a text summary
 * for screen readers. The x axis ticks once a day (`dayTicks`, labelled `11-23`) and the y axis
 * starts at 0. The drawn x range is written to `data-x-min`/`data-x-max` (seconds), the x ticks
 * to `data-x-ticks` and the y range to `data-y-min`/`data-y-max`, so tests can check the axes.
 */
export function Chart(props: {
  title: string;
  summary: string;
  data: uPlot.AlignedData;
  series: Array<{ label: string; stroke: string; fill?: string; value?: (v: number | null) => string }>;
  yLabel: string;
  /** The y values are counts: ticks on whole numbers only. */
  yWhole?: boolean;
}) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const xs = props.data[0] as ArrayLike<number>;
    const ticks = dayTicks(xs, Math.max(2, Math.floor((element.clientWidth || 600) / 70)));
    element.dataset.xTicks = ticks.join(' ');
    const chart = new uPlot(
      {
        width: Math.max(320, element.clientWidth || 600),
        height: 220,
        series: [
          // The legend's x value: the day hovered, as the axis writes it.
          { label: 'Day', value: (_u, v) => (v == null ? '—' : format(new Date(v * 1000), 'yyyy-MM-dd')) },
          ...props.series.map((series) => ({
            label: series.label,
            stroke: series.stroke,
            // A single bucket has no line to draw: show the points.
            points: { show: xs.length < 32 },
            ...(series.fill ? { fill: series.fill } : {}),
            ...(series.value ? { value: (_u: uPlot, v: number | null) => series.value?.(v) ?? '' } : {}),
          })),
        ],
        axes: [
          {
            // One tick a day on the days' points (uPlot's own time ticks fall on hours).
            splits: () => ticks,
            values: (_u, splits) => splits.map((split) => format(new Date(split * 1000), 'MM-dd')),
          },
          { label: props.yLabel, ...(props.yWhole ? { incrs: wholeSteps } : {}) },
        ],
        scales: {
          // uPlot's automatic range for one x value (min = max) spans years: set it from the data.
          x: { time: true, range: () => timeAxisRange(xs, daySeconds) },
          y: { range: (_u, _min, max) => countAxisRange(max) },
        },
        hooks: {
          setScale: [
            (u, key) => {
              const scale = u.scales[key];
              element.dataset[`${key}Min`] = String(scale?.min ?? '');
              element.dataset[`${key}Max`] = String(scale?.max ?? '');
            },
          ],
        },
      },
      props.data,
      element,
    );
    for (const key of ['x', 'y']) {
      element.dataset[`${key}Min`] = String(chart.scales[key]?.min ?? '');
      element.dataset[`${key}Max`] = String(chart.scales[key]?.max ?? '');
    }
    return () => chart.destroy();
  }, [props.data, props.series, props.yLabel, props.yWhole]);
  return (
    <figure className="chart">
      <figcaption>{props.title}</figcaption>
      <div ref={host} role="img" aria-label={`${props.title}: ${props.summary}`} />
    </figure>
  );
}
