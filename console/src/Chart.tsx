import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  type ChartConfiguration,
} from 'chart.js';
import { useEffect, useRef } from 'react';

// Only the parts the console draws (tree-shaken: line and bar charts on category axes).
Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
);

/** Distinct colours for up to eight series, then again. */
export const PALETTE = [
  '#1f6feb',
  '#d1242f',
  '#1a7f37',
  '#9a6700',
  '#8250df',
  '#bf3989',
  '#0a7b83',
  '#57606a',
];

/**
 * A Chart.js chart on a canvas, redrawn when `config` changes. The canvas is an image whose
 * `label` says in words what it shows (the figures are beside it, for every reader).
 */
export function ChartCanvas({
  config,
  label,
  name,
}: {
  config: ChartConfiguration;
  label: string;
  name: string;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, {
      ...config,
      options: { animation: false, maintainAspectRatio: false, ...config.options },
    });
    return () => chart.destroy();
  }, [config]);
  return (
    <div className="chart">
      <canvas ref={canvas} role="img" aria-label={label} data-chart={name} />
    </div>
  );
}
