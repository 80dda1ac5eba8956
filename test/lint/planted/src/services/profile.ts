// Allowed: a service imports the domain and db/.
import type { QueryRow } from '../../db/queries.js';
import type { Cursor } from '../domain/cursor.js';

export type Profile = { row: QueryRow; cursor: Cursor };
