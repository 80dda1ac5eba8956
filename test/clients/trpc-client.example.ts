import { createClient } from 'user-profile-service-client';

/** `handle` is the fan's own pick: handles are unique, one someone holds is 409 HANDLE_TAKEN. */
export async function onboardOverTrpc(baseUrl: string, token: string, handle: string) {
  const api = createClient({ url: baseUrl, token });
  const { data: user } = await api.updateUser.mutate({ handle, favoriteTeam: 'Arsenal' });
  const { data } = await api.onboardProfile.mutate({ name: 'Alice' });
  return { handle: user.handle, points: data.user.points, rank: data.leaderboardEntry.rank };
}
