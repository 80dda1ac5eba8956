import { createClient } from 'user-profile-service-client';

/** A check-in service: its own client-credentials token, one event per check-in, sent once. */
export async function recordCheckins(
  baseUrl: string,
  serviceToken: string,
  checkins: { checkinId: string; fanSubject: string; at: Date }[],
) {
  const api = createClient({ url: baseUrl, token: serviceToken });
  const { data } = await api.recordEvents.mutate({
    events: checkins.map((checkin) => ({
      id: `checkin-${checkin.checkinId}`, // the idempotency key: safe to send again
      subject: checkin.fanSubject,
      type: 'match_checkin',
      occurredAt: checkin.at.toISOString(),
    })),
  });
  // One result per event, in order: recorded, duplicate (sent before) or rejected (with a code).
  return data.results.map((result) =>
    result.status === 'rejected'
      ? `${result.id}: ${result.error.code}`
      : `${result.id}: ${result.status}`,
  );
}
