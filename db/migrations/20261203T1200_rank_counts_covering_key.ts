import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.

/**
 * `rank_counts`' primary key carries `n` (INCLUDE), so a rank's sums over
 * count cells are index-only scans: the up to 256 × shards cells of a level
 * sit on one or two leaf pages, where reading `n` from the heap visited a
 * page per cell (a level −1 sum on a board of 1,000,000 fans: 179 heap pages
 * against 3 leaf pages). An index-only scan still visits the heap for pages
 * written since the last vacuum, and every award writes cells, so the table
 * is vacuumed after 20,000 changed rows whatever its size instead of a fifth
 * of it (millions of rows on a large board); such a vacuum reads only the
 * pages written since the last one. An update of `n` is no longer HOT, which
 * the key's updates seldom were (full pages). The table is rewritten in key
 * order (CLUSTER, as bench:seed and rebuildRankCounts write it): a scan that
 * does visit the heap (cells written since the last vacuum, or every cell on
 * a server without autovacuum) then reads a few pages per level's sum, not
 * one per cell. CLUSTER holds an exclusive lock while it rewrites: seconds
 * per million rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE UNIQUE INDEX rank_counts_cells
    ON rank_counts (board, team_key, level, points, bucket, shard) INCLUDE (n)`.execute(db);
  await sql`ALTER TABLE rank_counts DROP CONSTRAINT rank_counts_pkey,
    ADD CONSTRAINT rank_counts_pkey PRIMARY KEY USING INDEX rank_counts_cells`.execute(db);
  await sql`CLUSTER rank_counts USING rank_counts_pkey`.execute(db);
  await sql`ALTER TABLE rank_counts SET (
    autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 20000,
    autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 20000)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE rank_counts RESET (
    autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold,
    autovacuum_vacuum_insert_scale_factor, autovacuum_vacuum_insert_threshold)`.execute(db);
  await sql`CREATE UNIQUE INDEX rank_counts_cells
    ON rank_counts (board, team_key, level, points, bucket, shard)`.execute(db);
  await sql`ALTER TABLE rank_counts DROP CONSTRAINT rank_counts_pkey,
    ADD CONSTRAINT rank_counts_pkey PRIMARY KEY USING INDEX rank_counts_cells`.execute(db);
}
