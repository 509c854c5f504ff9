import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** A uPlot chart (time on x, one or more series) with a text summary for screen readers. */
export function Chart(props: {
  title: string;
  summary: string;
  data: uPlot.AlignedData;
  series: Array<{ label: string; stroke: string; fill?: string; value?: (v: number | null) => string }>;
  yLabel: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const chart = new uPlot(
      {
        width: Math.max(320, element.clientWidth || 600),
        height: 220,
        series: [
          {},
          ...props.series.map((series) => ({
            label: series.label,
            stroke: series.stroke,
            ...(series.fill ? { fill: series.fill } : {}),
            ...(series.value ? { value: (_u: uPlot, v: number | null) => series.value?.(v) ?? '' } : {}),
          })),
        ],
        axes: [{}, { label: props.yLabel }],
        scales: { x: { time: true } },
      },
      props.data,
      element,
    );
    return () => chart.destroy();
  }, [props.data, props.series, props.yLabel]);
  return (
    <figure className="chart">
      <figcaption>{props.title}</figcaption>
      <div ref={host} role="img" aria-label={`${props.title}: ${props.summary}`} />
    </figure>
  );
}
