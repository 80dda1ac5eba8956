import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, describeError, type Outputs } from '../api.js';
import { ConfirmedAction, Field } from '../components.js';
import { FanActions } from './FanActions.js';

/** A fan's whole story (adminFan) and what an operator can do about it. */
export function FanPage({ userId }: { userId: string }) {
  const queryClient = useQueryClient();
  const story = useQuery({
    queryKey: ['adminFan', userId],
    queryFn: () => api.adminFan.query({ userId }),
  });
  const [reason, setReason] = useState('');
  if (story.isPending) return <p>Loading…</p>;
  if (story.isError) return <p role="alert">{describeError(story.error)}</p>;
  const { fan, profile, boards, events, ledger } = story.data.data;
  const name = fan.handle ? `@${fan.handle}` : fan.subject;
  const banned = fan.bannedAt !== null;
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['adminFan', userId] });

  return (
    <section aria-labelledby="fan-title">
      <h1 id="fan-title">{name}</h1>
      <dl className="facts">
        <dt>Id</dt>
        <dd>{fan.id}</dd>
        <dt>Subject</dt>
        <dd>{fan.subject}</dd>
        <dt>Name</dt>
        <dd>{profile.name ?? '—'}</dd>
        <dt>Balance</dt>
        <dd data-field="balance">{fan.points}</dd>
        <dt>Status</dt>
        <dd data-field="status">{banned ? `banned since ${fan.bannedAt}` : 'active'}</dd>
      </dl>

      <ConfirmedAction
        title={banned ? 'Lift the ban' : 'Ban this fan'}
        label={banned ? 'Unban' : 'Ban'}
        confirmText={`${banned ? 'Unban' : 'Ban'} ${name}? Reason: ${reason}`}
        run={async () => {
          const result = await api.adminSetBan.mutate({ userId, banned: !banned, reason });
          setReason('');
          await refresh();
          return result.data.banned ? `${name} is banned.` : `${name} is no longer banned.`;
        }}
      >
        <Field id="ban-reason" label="Reason" value={reason} onChange={setReason} />
      </ConfirmedAction>
      <FanActions userId={userId} name={name} />

      <h2>Boards</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Board</th>
            <th scope="col">Points</th>
            <th scope="col">Rank</th>
          </tr>
        </thead>
        <tbody>
          {boards.map((board) => (
            <tr key={`${board.period}-${board.season ?? ''}`}>
              <td>{board.season ?? 'all time'}</td>
              <td>{board.points}</td>
              <td>{board.hidden ? 'hidden' : (board.rank ?? '—')}</td>
            </tr>
          ))}
        </tbody>
      </table>

      <h2>Recent events</h2>
      <table data-table="events">
        <thead>
          <tr>
            <th scope="col">Type</th>
            <th scope="col">From</th>
            <th scope="col">Event id</th>
            <th scope="col">Points</th>
            <th scope="col">Balance after</th>
            <th scope="col">Recorded</th>
          </tr>
        </thead>
        <tbody>
          {events.entries.map((event) => (
            <tr key={`${event.clientId}/${event.eventId}`}>
              <td>{event.type}</td>
              <td>{event.clientId}</td>
              <td>{event.eventId}</td>
              <td>{event.reversedAt ? `${event.points} (reversed)` : event.points}</td>
              <td>{event.balance}</td>
              <td>{event.recordedAt}</td>
            </tr>
          ))}
        </tbody>
      </table>

      <h2>Ledger</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Points</th>
            <th scope="col">Source</th>
            <th scope="col">When</th>
          </tr>
        </thead>
        <tbody>
          {ledger.entries.map((entry) => (
            <tr key={entry.id}>
              <td>{entry.delta}</td>
              <td>{describeSource(entry.source)}</td>
              <td>{entry.createdAt}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

type LedgerSource = Outputs['adminFan']['data']['ledger']['entries'][number]['source'];

function describeSource(source: LedgerSource): string {
  switch (source.kind) {
    case 'quest':
      return `quest ${source.questId} (tier ${source.tier})`;
    case 'event':
      return `event ${source.type} from ${source.clientId} (${source.eventId})`;
    case 'streak':
      return `streak ${source.streakId} (${source.length})`;
    default:
      return source.kind;
  }
}
