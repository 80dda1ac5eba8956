import { operationSuites } from '../../helpers/operation-suites.js';

operationSuites('leaderboard', 'leaderboardAroundMe', 'leaderboardSeasons');
