// Allowed: the composition root imports the routers.
import type { AppRouter } from '../routers/index.js';

export type App = { router: AppRouter };
