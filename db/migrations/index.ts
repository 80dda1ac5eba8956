import type { Migration } from 'kysely';
import * as m20261122T1730 from './20261122T1730_users_profiles.js';
import * as m20261122T1800 from './20261122T1800_points_quests_leaderboard.js';
import * as m20261123T1500 from './20261123T1500_leaderboard_team_key.js';
import * as m20261123T1930 from './20261123T1930_user_version.js';
import * as m20261123T1945 from './20261123T1945_handle_claims_history.js';
import * as m20261123T2000 from './20261123T2000_boards_rank_counts.js';
import * as m20261123T2015 from './20261123T2015_account_deletion.js';
import * as m20261123T2030 from './20261123T2030_live_events.js';
import * as m20261123T2130 from './20261123T2130_team_key_fold.js';
import * as m20261123T2145 from './20261123T2145_account_deleted_event.js';
import * as m20261123T2200 from './20261123T2200_season_archives.js';
import * as m20261124T0900 from './20261124T0900_webhook_log_outlives_events.js';
import * as m20261124T0915 from './20261124T0915_deleted_accounts_leave_no_link.js';
import * as m20261124T0930 from './20261124T0930_empty_season_archives.js';
import * as m20261126T1000 from './20261126T1000_rank_points_levels.js';
import * as m20261126T1100 from './20261126T1100_activity_catalog.js';
import * as m20261126T1200 from './20261126T1200_admin.js';
import * as m20261126T1300 from './20261126T1300_webhook_endpoints.js';
import * as m20261128T0800 from './20261128T0800_ledger_recorded_at.js';
import * as m20261130T1000 from './20261130T1000_admin_lookups.js';
import * as m20261203T1200 from './20261203T1200_rank_counts_covering_key.js';

/**
 * Every migration, by name, in order. An explicit registry rather than a
 * folder scan: it survives compilation and bundling unchanged.
 */
export const migrations: Record<string, Migration> = {
  '20261122T1730_users_profiles': m20261122T1730,
  '20261122T1800_points_quests_leaderboard': m20261122T1800,
  '20261123T1500_leaderboard_team_key': m20261123T1500,
  '20261123T1930_user_version': m20261123T1930,
  '20261123T1945_handle_claims_history': m20261123T1945,
  '20261123T2000_boards_rank_counts': m20261123T2000,
  '20261123T2015_account_deletion': m20261123T2015,
  '20261123T2030_live_events': m20261123T2030,
  '20261123T2130_team_key_fold': m20261123T2130,
  '20261123T2145_account_deleted_event': m20261123T2145,
  '20261123T2200_season_archives': m20261123T2200,
  '20261124T0900_webhook_log_outlives_events': m20261124T0900,
  '20261124T0915_deleted_accounts_leave_no_link': m20261124T0915,
  '20261124T0930_empty_season_archives': m20261124T0930,
  '20261126T1000_rank_points_levels': m20261126T1000,
  '20261126T1100_activity_catalog': m20261126T1100,
  '20261126T1200_admin': m20261126T1200,
  '20261126T1300_webhook_endpoints': m20261126T1300,
  '20261128T0800_ledger_recorded_at': m20261128T0800,
  '20261130T1000_admin_lookups': m20261130T1000,
  '20261203T1200_rank_counts_covering_key': m20261203T1200,
};
