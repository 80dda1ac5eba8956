// Planted: a migration imports the schema (migrations-are-frozen).
import type { Row } from '../schema.js';

export type FirstRow = Row;
