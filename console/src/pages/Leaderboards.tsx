import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { api, describeError, type Inputs, type Outputs } from '../api.js';

type Board = NonNullable<Inputs['adminLeaderboard']['board']>;
type Entry = Outputs['adminLeaderboard']['data']['entries'][number];

const BOARDS: ReadonlyArray<[Board, string]> = [
  ['global', 'All-time'],
  ['team', 'Team'],
  ['week', 'This week'],
  ['month', 'This month'],
];

/** How often a week's or month's board is read again (its stream is the whole board's). */
const SEASON_REREAD_MS = 10_000;

/**
 * Leaderboards: the top 100 of a board, live (decision 0093). The all-time and team boards are
 * the adminLeaderboardEvents stream's tops; a week's or month's has no stream of its own, so it
 * is read again whenever the whole board moves and every 10 s. A closed season shows its final
 * standings, which never move.
 */
export function LeaderboardsPage() {
  const queryClient = useQueryClient();
  const [board, setBoard] = useState<Board>('global');
  const [teamText, setTeamText] = useState('');
  const [team, setTeam] = useState<string>();
  // '' is the season in progress.
  const [season, setSeason] = useState('');
  const period = board === 'week' || board === 'month' ? board : undefined;
  const closed = period !== undefined && season !== '';
  const ready = board !== 'team' || team !== undefined;
  const streamed = (board === 'global' || board === 'team') && ready;

  const seasons = useQuery({
    queryKey: ['adminLeaderboardSeasons', period],
    queryFn: () => api.adminLeaderboardSeasons.query({ period: period!, limit: 100 }),
    enabled: period !== undefined,
  });
  const key = ['adminLeaderboard', board, board === 'team' ? team : null, closed ? season : null];
  const read = useQuery({
    queryKey: key,
    queryFn: () =>
      api.adminLeaderboard.query({
        board,
        team: board === 'team' ? team : undefined,
        season: closed ? season : undefined,
        limit: 100,
      }),
    enabled: ready,
    refetchInterval: period !== undefined && !closed ? SEASON_REREAD_MS : false,
  });

  const [live, setLive] = useState<{ board: string; entries: Entry[]; at: string }>();
  const liveBoard = `${board}/${team ?? ''}`;
  const [streamError, setStreamError] = useState<string>();
  useEffect(() => {
    setLive(undefined);
    setStreamError(undefined);
    if (!ready || closed) return;
    const subscription = api.adminLeaderboardEvents.subscribe(
      { team: board === 'team' ? team : undefined, top: 100 },
      {
        onData: (update) => {
          setStreamError(undefined);
          if (streamed)
            setLive({ board: liveBoard, entries: update.entries, at: update.timestamp });
          // The whole board moved: so may this week's or month's.
          else void queryClient.invalidateQueries({ queryKey: key });
        },
        onError: (error) => setStreamError(describeError(error)),
      },
    );
    return () => subscription.unsubscribe();
    // `key` is made of these.
  }, [board, team, closed, season, ready, streamed, queryClient]);

  const data = read.data?.data;
  const shown = live?.board === liveBoard ? live : undefined;
  const entries = streamed && shown ? shown.entries : (data?.entries ?? []);
  const pickBoard = (next: Board) => {
    setBoard(next);
    setSeason('');
  };
  const pickTeam = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = teamText.trim();
    setTeam(trimmed === '' ? undefined : trimmed);
  };
  const title = closed
    ? `Final standings of ${season}`
    : board === 'team'
      ? team
        ? `${team}'s fans`
        : 'A team’s fans'
      : (BOARDS.find(([b]) => b === board)?.[1] ?? board);

  return (
    <section aria-labelledby="leaderboards-title">
      <h1 id="leaderboards-title">Leaderboards</h1>
      <p role="group" aria-label="Board" className="filters">
        {BOARDS.map(([b, label]) => (
          <button key={b} type="button" aria-pressed={board === b} onClick={() => pickBoard(b)}>
            {label}
          </button>
        ))}
      </p>
      {board === 'team' && (
        <form className="filters" onSubmit={pickTeam} aria-label="Pick a team">
          <p>
            <label htmlFor="board-team">Team</label>
            <input
              id="board-team"
              value={teamText}
              autoComplete="off"
              onChange={(event) => setTeamText(event.target.value)}
            />
          </p>
          <p>
            <button type="submit">Show</button>
          </p>
        </form>
      )}
      {period && (
        <p className="filters">
          <label htmlFor="board-season">Season</label>
          <select
            id="board-season"
            value={season}
            onChange={(event) => setSeason(event.target.value)}
          >
            <option value="">
              in progress{seasons.data ? ` (${seasons.data.data.open.season})` : ''}
            </option>
            {(seasons.data?.data.entries ?? []).map((s) => (
              <option key={s.season} value={s.season}>
                {s.season} (closed)
              </option>
            ))}
          </select>
        </p>
      )}
      {read.isError && <p role="alert">{describeError(read.error)}</p>}
      {seasons.isError && <p role="alert">{describeError(seasons.error)}</p>}
      {streamError && <p role="alert">Live updates stopped: {streamError}</p>}
      {ready && (
        <table data-table="board">
          <caption>
            {title}: top {entries.length}
            {data?.startsAt && !closed && ` (since ${new Date(data.startsAt).toLocaleString()})`}
            <span data-field="board-status">
              {closed
                ? ' — final'
                : streamed
                  ? shown
                    ? ` — live, ${new Date(shown.at).toLocaleTimeString()}`
                    : ' — connecting'
                  : ' — read again as points arrive'}
            </span>
          </caption>
          <thead>
            <tr>
              <th scope="col">Rank</th>
              <th scope="col">Handle</th>
              <th scope="col">Name</th>
              <th scope="col">Points</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.userId ?? `gone-${entry.rank}`} data-user={entry.userId ?? ''}>
                <td>{entry.rank}</td>
                <td>
                  {entry.userId ? (
                    <a href={`#/fans/${entry.userId}`}>{entry.handle ?? entry.userId}</a>
                  ) : (
                    'deleted account'
                  )}
                </td>
                <td>{entry.name}</td>
                <td>{entry.points}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
