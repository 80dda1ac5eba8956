export type Config = { port: number };
