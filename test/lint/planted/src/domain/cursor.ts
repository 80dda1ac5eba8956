// Planted: the domain imports tRPC's context (domain-and-services-stay-below-the-faces).
import type { Context } from '../trpc/context.js';

export type Cursor = { after: string; context?: Context };
