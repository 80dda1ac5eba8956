// Planted: db/ imports src/ (db-imports-nothing-above).
import type { Config } from '../src/config.js';

export type Row = { id: string; config?: Config };
