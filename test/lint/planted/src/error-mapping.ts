import type { AppError } from './app-error.js';

export type ErrorBody = { code: string; cause?: AppError };
