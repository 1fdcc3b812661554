/** Where the tests find the machine's PostgreSQL and Redis: DATABASE_URL and REDIS_URL, or the local defaults. */
export const POSTGRES_URL = process.env.DATABASE_URL?.startsWith('postgres') ? process.env.DATABASE_URL : 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
