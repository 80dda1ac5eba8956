// Planted: a face imports the routers (only-app-imports-routers).
import type { AppRouter } from '../../routers/index.js';

export type Docs = { router: AppRouter };
