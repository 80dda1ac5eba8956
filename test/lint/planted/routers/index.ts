// Allowed: a router imports services and the domain.
import type { Profile } from '../src/services/profile.js';

export type AppRouter = { profile: Profile };
