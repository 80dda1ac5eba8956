// Planted, with src/error-mapping.ts: two files importing each other (no-circular).
import type { ErrorBody } from './error-mapping.js';

export type AppError = { body?: ErrorBody };
