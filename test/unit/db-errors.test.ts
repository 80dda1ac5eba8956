import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../db/queries/errors.js';

describe('isDatabaseUnavailable', () => {
  it.each([
    [{ code: '57P01', message: 'terminating connection due to administrator command' }],
    [{ code: '57014', message: 'canceling statement due to statement timeout' }],
    [{ code: '08006', message: 'connection failure' }],
    [{ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:5432' }],
    [new Error('Connection terminated unexpectedly')],
    [new Error('timeout exceeded when trying to connect')],
    // The ROLLBACK Kysely sends after a query failed on a connection that died.
    [new Error('Client has encountered a connection error and is not queryable')],
    [new Error('Client was closed and is not queryable')],
  ])('treats %j as the database being unavailable', (error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    [{ code: '42P01', message: 'relation "user_quests" does not exist' }],
    [{ code: '23505', message: 'duplicate key value violates unique constraint' }],
    [new Error('something else')],
    [null],
    ['Connection terminated'],
  ])('does not treat %j as unavailability', (error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
