export type Context = { userId: string };
