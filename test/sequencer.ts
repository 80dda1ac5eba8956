import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that take far longer than their size suggests, with what one took in
 * seconds (the larger of PGlite and PostgreSQL through PgBouncer, on a loaded
 * 2-core machine: docs/decisions/0123-ci-time.md). Only their order matters.
 */
export const SLOW_FILES: Readonly<Record<string, number>> = {
  'test/db/rank/rank-storm.test.ts': 69,
  'test/platform/live/live-fanout.test.ts': 45,
  'test/db/rank/activity-storm.test.ts': 41,
  'test/platform/process/process.test.ts': 31,
  'test/db/rank/leaderboard-store.test.ts': 31,
  'test/platform/process/production-start.test.ts': 29,
};

/**
 * Longest files first, so that the two workers finish together instead of
 * one running a long file alone at the end. vitest orders files by their last
 * duration, but keeps durations in node_modules/.vite, which `npm ci` removes:
 * without them it orders by file size, and puts these small, slow files near
 * the end. A file's last duration wins when vitest has one; else
 * SLOW_FILES's; files with neither follow in vitest's order.
 */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const root = this.ctx.config.root;
    const seconds = (spec: TestSpecification): number | undefined => {
      const file = path.relative(root, spec.moduleId).split(path.sep).join('/');
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${file}`);
      return cached ? cached.duration / 1000 : SLOW_FILES[file];
    };
    const position = new Map(base.map((spec, index) => [spec, index]));
    const projects = [...new Set(base.map((spec) => spec.project.name))];
    return [...base].sort((a, b) => {
      // Projects keep vitest's order, as its pool expects.
      const byProject = projects.indexOf(a.project.name) - projects.indexOf(b.project.name);
      if (byProject !== 0) return byProject;
      const [sa, sb] = [seconds(a), seconds(b)];
      if (sa !== undefined && sb !== undefined && sa !== sb) return sb - sa;
      if (sa !== undefined && sb === undefined) return -1;
      if (sa === undefined && sb !== undefined) return 1;
      return position.get(a)! - position.get(b)!;
    });
  }
}
