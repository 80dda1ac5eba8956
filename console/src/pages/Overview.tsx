import { useQuery } from '@tanstack/react-query';
import type { ChartConfiguration } from 'chart.js';
import { useMemo, useState } from 'react';
import { api, describeError, type Outputs } from '../api.js';
import { ChartCanvas, PALETTE } from '../Chart.js';

type Overview = Outputs['adminOverview']['data'];
type Window = Overview['window'];

/** A bucket's start as the axis shows it: the operator's local hours and minutes. */
const clock = (iso: string) =>
  new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

function eventsChart(o: Overview): ChartConfiguration {
  const perMinute = 60 / o.bucketSeconds;
  return {
    type: 'line',
    data: {
      labels: o.buckets.map(clock),
      datasets: o.events.map((series, i) => ({
        label: series.type,
        data: series.counts.map((n) => n * perMinute),
        borderColor: PALETTE[i % PALETTE.length],
        backgroundColor: PALETTE[i % PALETTE.length],
        pointRadius: 0,
      })),
    },
    options: { scales: { y: { beginAtZero: true, title: { display: true, text: 'per minute' } } } },
  };
}

function pointsChart(o: Overview): ChartConfiguration {
  return {
    type: 'bar',
    data: {
      labels: o.buckets.map(clock),
      datasets: [{ label: 'points awarded', data: o.points, backgroundColor: PALETTE[2] }],
    },
    options: { scales: { y: { beginAtZero: true } } },
  };
}

function barsChart(labels: string[], data: number[], label: string): ChartConfiguration {
  return {
    type: 'bar',
    data: {
      labels,
      datasets: [{ label, data, backgroundColor: labels.map((_, i) => PALETTE[i % 8]!) }],
    },
    options: { indexAxis: 'y', plugins: { legend: { display: false } } },
  };
}

const sum = (numbers: number[]) => numbers.reduce((total, n) => total + n, 0);

/** Overview: the game at a glance over the last hour or day, refreshed every 30 seconds. */
export function OverviewPage() {
  const [period, setPeriod] = useState<Window>('hour');
  const read = useQuery({
    queryKey: ['adminOverview', period],
    queryFn: () => api.adminOverview.query({ window: period }),
    refetchInterval: 30_000,
  });
  const o = read.data?.data;
  const charts = useMemo(() => {
    if (!o) return undefined;
    const { delivered, failed, gaveUp } = o.webhooks;
    return {
      events: eventsChart(o),
      points: pointsChart(o),
      rejections: barsChart(
        o.rejections.byCode.map((r) => r.code),
        o.rejections.byCode.map((r) => r.count),
        'rejected events',
      ),
      deliveries: barsChart(
        ['delivered', 'failed (retried)', 'gave up'],
        [delivered, failed, gaveUp],
        'delivery attempts',
      ),
    };
  }, [o]);
  const span = period === 'hour' ? 'last hour' : 'last day';
  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview</h1>
      <p role="group" aria-label="Window" className="filters">
        {(['hour', 'day'] as const).map((w) => (
          <button key={w} type="button" aria-pressed={period === w} onClick={() => setPeriod(w)}>
            Last {w}
          </button>
        ))}
      </p>
      {read.isError && <p role="alert">{describeError(read.error)}</p>}
      {o && charts && (
        <>
          <dl className="tiles">
            {(
              [
                ['events', `Events (${span})`, sum(o.events.map((e) => sum(e.counts)))],
                ['points', `Points awarded (${span})`, sum(o.points)],
                ['active-fans', `Active fans (${span})`, o.activeFans],
                ['outbox-lag', 'Outbox lag (s)', Math.round(o.outboxLagSeconds)],
                ['queued', 'Deliveries queued', o.webhooks.queued],
                [
                  'endpoints',
                  'Endpoints (enabled / disabled)',
                  `${o.webhooks.endpointsEnabled} / ${o.webhooks.endpointsDisabled}`,
                ],
              ] as const
            ).map(([field, label, value]) => (
              <div key={field}>
                <dt>{label}</dt>
                <dd data-field={field}>{value}</dd>
              </div>
            ))}
          </dl>
          <div className="charts">
            <figure>
              <figcaption>Events per minute by type ({span})</figcaption>
              <ChartCanvas
                name="events"
                config={charts.events}
                label={`Events per minute by type: ${
                  o.events.map((e) => `${e.type} ${sum(e.counts)}`).join(', ') || 'none'
                } in the ${span}`}
              />
            </figure>
            <figure>
              <figcaption>Points awarded ({span})</figcaption>
              <ChartCanvas
                name="points"
                config={charts.points}
                label={`${sum(o.points)} points awarded in the ${span}`}
              />
            </figure>
            <figure>
              <figcaption>
                Rejected events by code (since this instance started,{' '}
                {new Date(o.rejections.since).toLocaleString()})
              </figcaption>
              <ChartCanvas
                name="rejections"
                config={charts.rejections}
                label={`Rejected events: ${
                  o.rejections.byCode.map((r) => `${r.code} ${r.count}`).join(', ') || 'none'
                }`}
              />
              <ul data-list="rejections">
                {o.rejections.byCode.map((r) => (
                  <li key={r.code}>
                    {r.code}: {r.count}
                  </li>
                ))}
              </ul>
            </figure>
            <figure>
              <figcaption>Webhook deliveries ({span})</figcaption>
              <ChartCanvas
                name="deliveries"
                config={charts.deliveries}
                label={`Webhook delivery attempts: ${o.webhooks.delivered} delivered, ${o.webhooks.failed} failed and retried, ${o.webhooks.gaveUp} given up`}
              />
            </figure>
          </div>
        </>
      )}
    </section>
  );
}
