import createClient from 'openapi-fetch';
import type { paths } from 'user-profile-service-client';

export async function onboardOverRest(baseUrl: string, token: string) {
  const api = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${token}` } });
  const { data, error, response } = await api.POST('/api/user/profile', {
    body: { name: 'Alice', favoriteTeam: 'Arsenal' },
  });
  if (error) throw new Error(`${response.status} ${error.error.code}: ${error.error.message}`);
  return { status: response.status, points: data.data.user.points };
}
