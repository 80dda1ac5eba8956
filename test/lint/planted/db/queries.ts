// Allowed: db/ imports db/.
import type { Row } from './schema.js';

export type QueryRow = Row;
