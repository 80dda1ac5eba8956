import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../api.js';
import { ConfirmedAction, Field } from '../components.js';

/** Adjust a fan's balance with a note, and reverse one of their events (both audited). */
export function FanActions({ userId, name }: { userId: string; name: string }) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['adminFan', userId] });
  const [points, setPoints] = useState('');
  const [note, setNote] = useState('');
  const [clientId, setClientId] = useState('');
  const [eventId, setEventId] = useState('');
  const [why, setWhy] = useState('');
  return (
    <>
      <ConfirmedAction
        title="Adjust the balance"
        label="Adjust"
        confirmText={`Give ${name} ${points} points? Note: ${note}`}
        run={async () => {
          const result = await api.adminAdjustPoints.mutate({
            userId,
            id: crypto.randomUUID(),
            points: Number(points),
            reason: note,
          });
          setPoints('');
          setNote('');
          await refresh();
          return `Adjusted by ${result.data.points}: the balance is ${result.data.balance}.`;
        }}
      >
        <Field
          id="adjust-points"
          label="Points (+/−)"
          type="number"
          value={points}
          onChange={setPoints}
        />
        <Field id="adjust-note" label="Note" value={note} onChange={setNote} />
      </ConfirmedAction>
      <ConfirmedAction
        title="Reverse an event"
        label="Reverse"
        confirmText={`Reverse ${clientId}'s event ${eventId} for ${name}? Reason: ${why}`}
        run={async () => {
          const result = await api.adminReverseEvent.mutate({ clientId, id: eventId, reason: why });
          setWhy('');
          await refresh();
          return `Reversed: ${JSON.stringify(result.data)}`;
        }}
      >
        <Field
          id="reverse-client"
          label="Sent by (client)"
          value={clientId}
          onChange={setClientId}
        />
        <Field id="reverse-event" label="Event id" value={eventId} onChange={setEventId} />
        <Field id="reverse-reason" label="Reason" value={why} onChange={setWhy} />
      </ConfirmedAction>
    </>
  );
}
