import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, describeError, type Outputs } from '../api.js';
import { ConfirmedAction, Field } from '../components.js';

type Endpoint = Outputs['adminListWebhookEndpoints']['data']['endpoints'][number];
const EVENT_TYPES: Endpoint['eventTypes'] = [
  'quest_completed',
  'points_awarded',
  'rank_changed',
  'streak_extended',
  'streak_lost',
  'account_deleted',
];

/** A secret the service showed once: on screen until the operator dismisses it, never stored. */
function SecretOnce({ secret, onDone }: { secret: string; onDone: () => void }) {
  return (
    <div role="alert" className="secret">
      <p>The endpoint's secret, shown this once: keep it where the receiver verifies signatures.</p>
      <p>
        <code data-field="secret">{secret}</code>
      </p>
      <button type="button" onClick={onDone}>
        I have kept it
      </button>
    </div>
  );
}

function AddEndpoint({ onSecret }: { onSecret: (secret: string) => void }) {
  const queryClient = useQueryClient();
  const [url, setUrl] = useState('');
  const [types, setTypes] = useState<Endpoint['eventTypes']>([]);
  return (
    <ConfirmedAction
      title="Add an endpoint"
      label="Add"
      confirmText={`Send ${types.length ? types.join(', ') : 'every event type'} to ${url}?`}
      run={async () => {
        const made = await api.adminCreateWebhookEndpoint.mutate({ url, eventTypes: types });
        setUrl('');
        setTypes([]);
        onSecret(made.data.secret);
        await queryClient.invalidateQueries({ queryKey: ['adminListWebhookEndpoints'] });
        return `Added ${made.data.endpoint.url}.`;
      }}
    >
      <Field id="endpoint-url" label="URL" type="url" value={url} onChange={setUrl} />
      <fieldset>
        <legend>Event types (none: every type)</legend>
        {EVENT_TYPES.map((type) => (
          <label key={type} className="check">
            <input
              type="checkbox"
              checked={types.includes(type)}
              onChange={(event) =>
                setTypes(event.target.checked ? [...types, type] : types.filter((t) => t !== type))
              }
            />{' '}
            {type}
          </label>
        ))}
      </fieldset>
    </ConfirmedAction>
  );
}

function Deliveries({ endpoint }: { endpoint: Endpoint }) {
  const log = useQuery({
    queryKey: ['adminWebhookDeliveries', endpoint.id],
    queryFn: () => api.adminWebhookDeliveries.query({ id: endpoint.id, limit: 20 }),
    refetchInterval: 5_000,
  });
  if (log.isError) return <p role="alert">{describeError(log.error)}</p>;
  const entries = log.data?.data.entries ?? [];
  return (
    <table data-table="deliveries">
      <caption>Recent deliveries to {endpoint.url}</caption>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Event</th>
          <th scope="col">Type</th>
          <th scope="col">Attempt</th>
          <th scope="col">Outcome</th>
          <th scope="col">Status</th>
          <th scope="col">Error</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((entry) => (
          <tr key={entry.id}>
            <td>{entry.at}</td>
            <td>{entry.eventId}</td>
            <td>{entry.eventType}</td>
            <td>{entry.attempt}</td>
            <td>{entry.outcome}</td>
            <td>{entry.statusCode ?? '—'}</td>
            <td>{entry.error ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function EndpointActions({
  endpoint,
  onSecret,
}: {
  endpoint: Endpoint;
  onSecret: (secret: string) => void;
}) {
  const queryClient = useQueryClient();
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ['adminListWebhookEndpoints'] }),
      queryClient.invalidateQueries({ queryKey: ['adminWebhookDeliveries', endpoint.id] }),
    ]);
  const pause = endpoint.enabled ? 'Disable' : 'Enable';
  return (
    <div className="actions">
      <ConfirmedAction
        title={`${pause} the endpoint`}
        label={pause}
        confirmText={
          endpoint.enabled
            ? `Pause ${endpoint.url}? Its events queue until it is enabled again.`
            : `Resume ${endpoint.url}? What queued goes out.`
        }
        run={async () => {
          const changed = await api.adminUpdateWebhookEndpoint.mutate({
            id: endpoint.id,
            enabled: !endpoint.enabled,
          });
          await refresh();
          return `${changed.data.url} is ${changed.data.enabled ? 'enabled' : 'disabled'}.`;
        }}
      >
        {null}
      </ConfirmedAction>
      <ConfirmedAction
        title="Rotate the secret"
        label="Rotate"
        confirmText={`Rotate ${endpoint.url}'s secret? The old one still signs for an hour.`}
        run={async () => {
          const rotated = await api.adminRotateWebhookEndpointSecret.mutate({ id: endpoint.id });
          onSecret(rotated.data.secret);
          await refresh();
          return `Rotated: the previous secret signs until ${rotated.data.endpoint.previousSecretExpiresAt ?? 'now'}.`;
        }}
      >
        {null}
      </ConfirmedAction>
      <ConfirmedAction
        title="Send a test event"
        label="Send test"
        confirmText={`POST a webhook_test event to ${endpoint.url} now?`}
        run={async () => {
          const sent = await api.adminTestWebhookEndpoint.mutate({ id: endpoint.id });
          await refresh();
          return `Test event: ${sent.data.outcome}${sent.data.statusCode ? ` (HTTP ${sent.data.statusCode})` : ''}.`;
        }}
      >
        {null}
      </ConfirmedAction>
    </div>
  );
}

/** Webhooks: the endpoints, add, pause, rotate (the secret is shown once), recent deliveries. */
export function WebhooksPage() {
  const list = useQuery({
    queryKey: ['adminListWebhookEndpoints'],
    queryFn: () => api.adminListWebhookEndpoints.query(),
  });
  const [secret, setSecret] = useState<string>();
  const [open, setOpen] = useState<string>();
  const endpoints = (list.data?.data.endpoints ?? []).filter((e) => e.retiredAt === null);
  const shown = endpoints.find((e) => e.id === open);
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      {secret && <SecretOnce secret={secret} onDone={() => setSecret(undefined)} />}
      {list.isError && <p role="alert">{describeError(list.error)}</p>}
      <table data-table="endpoints">
        <caption>{endpoints.length} endpoints</caption>
        <thead>
          <tr>
            <th scope="col">URL</th>
            <th scope="col">Event types</th>
            <th scope="col">State</th>
            <th scope="col">Source</th>
            <th scope="col">Deliveries</th>
          </tr>
        </thead>
        <tbody>
          {endpoints.map((endpoint) => (
            <tr key={endpoint.id}>
              <td>{endpoint.url}</td>
              <td>{endpoint.eventTypes.join(', ') || 'every type'}</td>
              <td data-field="state">{endpoint.enabled ? 'enabled' : 'disabled'}</td>
              <td>{endpoint.source}</td>
              <td>
                <button
                  type="button"
                  aria-pressed={open === endpoint.id}
                  aria-label={`Manage ${endpoint.url}`}
                  onClick={() => setOpen(open === endpoint.id ? undefined : endpoint.id)}
                >
                  Manage
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {shown && (
        <section aria-label={`Endpoint ${shown.url}`}>
          <h2>{shown.url}</h2>
          {shown.source === 'admin' && <EndpointActions endpoint={shown} onSecret={setSecret} />}
          <Deliveries endpoint={shown} />
        </section>
      )}
      <AddEndpoint onSecret={setSecret} />
    </section>
  );
}
