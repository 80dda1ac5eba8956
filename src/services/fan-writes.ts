import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { CompiledStatements } from '../../db/statements.js';
import { isDatabaseUnavailable } from '../../db/queries/errors.js';
import { MAX_FANS_PER_STATEMENT } from '../../db/queries/events.js';
import {
  applyUserWrites,
  readUserStates,
  stateAfterWrite,
  type StateScope,
  type UserState,
  type UserWritePlan,
  type UserWriteResult,
} from '../../db/queries/user-write/index.js';
import { AppError } from '../app-error.js';
import { metrics, type UserWriter } from '../metrics.js';
import { scopeKey, type UserStateCache } from './state-cache.js';

/**
 * The write engine: the one loop of read → plan → apply → retry, for any
 * set of fans (docs/decisions/0050-write-engine.md). Every write of a fan's
 * state goes through `writeFans`: a profile PATCH or onboarding (one fan),
 * a batch of events (its fans), a reversal, an adjustment, a ban. Each round
 * reads the state of every fan still pending in one statement, plans each
 * with its own planner (plain functions of src/domain), and applies all the
 * plans in one guarded statement (db/queries/user-write/: one commit; up to
 * MAX_FANS_PER_STATEMENT fans each); the fans whose version moved meanwhile
 * are planned again from what they found, and only they, in the next round,
 * after a random back-off that doubles with each lost race, at most
 * WRITE_ATTEMPTS times; then that fan's answer is 503 with Retry-After. The
 * random wait spreads writers that collided instead of letting them collide
 * again.
 */
export const WRITE_ATTEMPTS = 8;

/** What the engine needs from the app. */
export interface FanWriteDeps {
  db: Kysely<Database>;
  statements: CompiledStatements;
  userStates: UserStateCache;
  /** Told each fan written for someone else (read-your-writes, the shared first pages: AppDeps.wrote). */
  wrote?: ((userId: string) => void) | undefined;
}

/** The result of a write that was applied. */
export type Written = Extract<UserWriteResult, { outcome: 'written' }>;

/** What a fan's planner decided from the state it read. */
export type FanStep<T> =
  /** Nothing to write: the answer. */
  | { answer: T }
  /** The write, and the answer once it is applied. */
  | { write: UserWritePlan; written(result: Written): T };

/** One fan's write: what to read, how to plan from it, what to answer when the fan is gone. */
export interface FanWrite<T> {
  userId: string;
  scope: StateScope;
  /**
   * Plans from the fan's state (plain computation, or reads of its own). A
   * throw is this fan's answer (its error), except on a cached state, which
   * is read again first.
   */
  plan(state: UserState): FanStep<T> | Promise<FanStep<T>>;
  /** The fan does not exist (or was deleted meanwhile): the answer, or a throw. */
  gone(): T;
  /** The handle the plan claims belongs to someone else: a throw. */
  handleTaken?(): never;
}

/** One fan's answer: its value, or the error it ended with (the other fans' stand). */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

export interface WriteOptions {
  writer: UserWriter;
  /**
   * The fans' own writes (a PATCH, an onboarding): plan from the state this
   * instance's last write of the fan left (src/services/state-cache.ts) and
   * keep the state each write leaves. Otherwise (a write for a fan by
   * someone else) the cached state is forgotten once written and `wrote` is
   * told.
   */
  cached?: boolean;
  /** How many races a fan may lose before its answer is 503 (WRITE_ATTEMPTS). */
  attempts?: number;
}

/** Waits a random time below 2^`lost` ms before the next try. */
export function backOff(lost: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.random() * 2 ** lost));
}

/** The answer when every try lost the race (counted by writer). */
export function tooManyWrites(writer: UserWriter): AppError {
  metrics.userWriteExhausted(writer);
  return new AppError('UNAVAILABLE', 'Too many simultaneous writes to one fan; retry shortly', {
    retryAfterSeconds: 1,
  });
}

interface Pending<T> {
  index: number;
  fan: FanWrite<T>;
  /** The state to plan from; `confirmed` when read from the database, not the cache. */
  source: { state: UserState; confirmed: boolean } | undefined;
  lost: number;
}

/**
 * Writes `fans` (each at most once per round), and answers each: its
 * planner's answer, or the error it ended with. The fans' plans are applied
 * together; a fan's failure never writes any part of it, nor fails the
 * others. An unreachable database rejects the whole call.
 */
export async function writeFans<T>(
  deps: FanWriteDeps,
  fans: readonly FanWrite<T>[],
  options: WriteOptions,
): Promise<Settled<T>[]> {
  const settled: Settled<T>[] = new Array<Settled<T>>(fans.length);
  const settle = (p: Pending<T>, answer: () => T) => {
    try {
      settled[p.index] = { ok: true, value: answer() };
    } catch (error) {
      settled[p.index] = { ok: false, error };
    }
  };
  const forget = (userId: string) => deps.userStates.delete(userId);
  let pending: Pending<T>[] = fans.map((fan, index) => ({
    index,
    fan,
    source: undefined,
    lost: 0,
  }));
  while (pending.length > 0) {
    // 1. The states: cached ones, and a read of each of the others.
    const unread: Pending<T>[] = [];
    for (const p of pending) {
      if (p.source) continue;
      const cached = options.cached
        ? deps.userStates.get(p.fan.userId, scopeKey(p.fan.scope))
        : undefined;
      if (cached) p.source = { state: cached, confirmed: false };
      else unread.push(p);
    }
    for (const chunk of chunks(unread)) {
      let states: Map<string, UserState>;
      try {
        states = await readUserStates(
          deps.db,
          deps.statements,
          chunk.map((p) => ({ userId: p.fan.userId, scope: p.fan.scope })),
        );
      } catch (error) {
        if (isDatabaseUnavailable(error)) throw error;
        for (const p of chunk) settled[p.index] = { ok: false, error };
        continue;
      }
      for (const p of chunk) {
        const state = states.get(p.fan.userId);
        if (state) p.source = { state, confirmed: true };
        else settle(p, () => p.fan.gone());
      }
    }

    // 2. The plans.
    const again: Pending<T>[] = [];
    const planned: { p: Pending<T>; step: Extract<FanStep<T>, { write: unknown }> }[] = [];
    const planning = new Set<string>();
    for (const p of pending) {
      const source = p.source;
      if (!source) continue;
      // One plan per fan and statement: a fan named twice is written in turn.
      if (planning.has(p.fan.userId)) {
        again.push(p);
        continue;
      }
      let step: FanStep<T>;
      try {
        step = await p.fan.plan(source.state);
      } catch (error) {
        if (source.confirmed) settled[p.index] = { ok: false, error };
        else reread(p);
        continue;
      }
      if ('answer' in step) {
        // Only the stored state may say that nothing is to be written.
        if (!source.confirmed) {
          reread(p);
          continue;
        }
        if (options.cached) deps.userStates.set(p.fan.userId, scopeKey(p.fan.scope), source.state);
        settled[p.index] = { ok: true, value: step.answer };
        continue;
      }
      // Planned on a cached state: if that is stale, the write returns the stored one.
      if (!source.confirmed) step.write.returnStateOn = p.fan.scope;
      planning.add(p.fan.userId);
      planned.push({ p, step });
    }
    function reread(p: Pending<T>) {
      forget(p.fan.userId);
      p.source = undefined;
      again.push(p);
    }

    // 3. The plans' guarded statement.
    const results: Settled<UserWriteResult>[] = [];
    for (const chunk of chunks(planned)) {
      results.push(
        ...(await applyUserWrites(
          deps.db,
          deps.statements,
          chunk.map(({ step }) => step.write),
        )),
      );
    }
    let maxLost = 0;
    results.forEach((applied, i) => {
      const { p, step } = planned[i]!;
      const { userId } = p.fan;
      if (!applied.ok) {
        forget(userId);
        settled[p.index] = applied;
        return;
      }
      const result = applied.value;
      metrics.userWriteAttempt(options.writer, result.outcome);
      if (result.outcome === 'written') {
        if (options.cached) {
          const after = stateAfterWrite(p.source!.state, step.write, result);
          deps.userStates.set(userId, scopeKey(p.fan.scope), after);
        } else {
          forget(userId);
          deps.wrote?.(userId);
        }
        settle(p, () => step.written(result));
        return;
      }
      forget(userId);
      switch (result.outcome) {
        case 'stale':
        case 'event_taken': {
          const source = p.source!;
          // A try from a cached state lost no race: try again at once.
          if (source.confirmed || result.outcome === 'event_taken') {
            p.lost += 1;
            if (p.lost >= (options.attempts ?? WRITE_ATTEMPTS)) {
              settled[p.index] = { ok: false, error: tooManyWrites(options.writer) };
              return;
            }
            maxLost = Math.max(maxLost, p.lost);
          }
          // Plan from the state the write found, unless it is no newer than the
          // plan's (the write waited for one that committed after it began).
          const current = result.outcome === 'stale' ? result.current : undefined;
          p.source =
            current && current.user.version !== source.state.user.version
              ? { state: current, confirmed: true }
              : undefined;
          again.push(p);
          return;
        }
        case 'gone':
          settle(p, () => p.fan.gone());
          return;
        case 'handle_taken':
          settle(p, () => {
            if (p.fan.handleTaken) return p.fan.handleTaken();
            throw new Error('a write claimed a handle without a handler for it');
          });
          return;
      }
    });
    if (maxLost > 0) await backOff(maxLost);
    pending = again;
  }
  return settled;
}

/** The value of a fan's answer, or its error thrown (a write of one fan). */
export function valueOf<T>(answer: Settled<T>): T {
  if (answer.ok) return answer.value;
  throw answer.error;
}

/** Writes one fan: the n = 1 case of writeFans. */
export async function writeFan<T>(
  deps: FanWriteDeps,
  fan: FanWrite<T>,
  options: WriteOptions,
): Promise<T> {
  const [answer] = await writeFans(deps, [fan], options);
  return valueOf(answer!);
}

/** `items` in statements' worth: at most MAX_FANS_PER_STATEMENT fans each. */
function chunks<I>(items: readonly I[]): I[][] {
  const out: I[][] = [];
  for (let at = 0; at < items.length; at += MAX_FANS_PER_STATEMENT) {
    out.push(items.slice(at, at + MAX_FANS_PER_STATEMENT));
  }
  return out;
}
