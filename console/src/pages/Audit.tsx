import { useInfiniteQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, describeError, type Inputs } from '../api.js';

type TargetKind = NonNullable<Inputs['adminAuditLog']['targetKind']>;
const TARGET_KINDS: TargetKind[] = ['definition', 'fan', 'webhook_endpoint'];

interface Filters {
  targetKind: TargetKind | '';
  targetKey: string;
  actor: string;
  action: string;
  since: string;
  until: string;
}
const EMPTY: Filters = {
  targetKind: '',
  targetKey: '',
  actor: '',
  action: '',
  since: '',
  until: '',
};

/** The service's filters for the form's (a datetime-local field is the operator's local time). */
function toQuery(filters: Filters): Omit<Inputs['adminAuditLog'], 'limit' | 'before'> {
  const instant = (value: string) => (value ? new Date(value).toISOString() : undefined);
  const query = {
    ...(filters.targetKind && filters.targetKey
      ? { targetKind: filters.targetKind, targetKey: filters.targetKey.trim() }
      : {}),
    actor: filters.actor.trim() || undefined,
    action: filters.action.trim() || undefined,
    since: instant(filters.since),
    until: instant(filters.until),
  };
  return Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined));
}

/**
 * Audit: every admin action, newest first, with before and after, narrowed on the service by
 * target, actor, action (one, or a family such as `fan`) and time (more come with "Older").
 */
export function AuditPage() {
  const [form, setForm] = useState(EMPTY);
  const [filters, setFilters] = useState(EMPTY);
  const query = toQuery(filters);
  const log = useInfiniteQuery({
    queryKey: ['adminAuditLog', query],
    queryFn: ({ pageParam }) =>
      api.adminAuditLog.query({
        limit: 100,
        ...query,
        ...(pageParam ? { before: pageParam } : {}),
      }),
    initialPageParam: '',
    getNextPageParam: (last) => last.data.nextCursor ?? undefined,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setFilters(form);
  };
  const set = (name: keyof Filters) => (value: string) => setForm({ ...form, [name]: value });
  const entries = (log.data?.pages ?? []).flatMap((page) => page.data.entries);
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit</h1>
      <form className="filters" onSubmit={submit} aria-label="Filter the audit log">
        <p>
          <label htmlFor="audit-kind">Target kind</label>
          <select
            id="audit-kind"
            value={form.targetKind}
            onChange={(event) => set('targetKind')(event.target.value)}
          >
            <option value="">any</option>
            {TARGET_KINDS.map((kind) => (
              <option key={kind}>{kind}</option>
            ))}
          </select>
        </p>
        {(
          [
            ['targetKey', 'Target (event_type/match_checkin, a user id)', 'text'],
            ['actor', 'Actor', 'text'],
            ['action', 'Action (fan.ban, or all of fan)', 'text'],
            ['since', 'Since', 'datetime-local'],
            ['until', 'Until', 'datetime-local'],
          ] as const
        ).map(([name, label, type]) => (
          <p key={name}>
            <label htmlFor={`audit-${name}`}>{label}</label>
            <input
              id={`audit-${name}`}
              type={type}
              value={form[name]}
              autoComplete="off"
              onChange={(event) => set(name)(event.target.value)}
            />
          </p>
        ))}
        <p>
          <button type="submit">Filter</button>
        </p>
      </form>
      {log.isError && <p role="alert">{describeError(log.error)}</p>}
      <table data-table="audit">
        <caption>{entries.length} entries</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Actor</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
            <th scope="col">Before</th>
            <th scope="col">After</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td>{entry.at}</td>
              <td>{entry.actor}</td>
              <td>{entry.action}</td>
              <td>
                {entry.targetKind} {entry.targetKey}
              </td>
              <td>
                <pre>{JSON.stringify(entry.before, null, 1)}</pre>
              </td>
              <td>
                <pre>{JSON.stringify(entry.after, null, 1)}</pre>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {log.hasNextPage && (
        <button type="button" onClick={() => void log.fetchNextPage()}>
          Older
        </button>
      )}
    </section>
  );
}
