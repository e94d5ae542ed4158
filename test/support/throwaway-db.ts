import { Client } from 'pg';

/** The local PostgreSQL server's admin database (trust auth), where throwaway databases are made. */
export const DEFAULT_PG_ADMIN_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';

export interface ThrowawayDb {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/**
 * A fresh, empty database on the server behind `adminUrl`, named `<prefix>_<pid>_<time>_<rand>`
 * so parallel runs (benchmarks, test engines, reliability trials) never share one. Shared by the
 * benchmarks and the test harnesses; `drop` removes it even while connections are open.
 */
export async function createThrowawayDb(adminUrl: string, prefix: string): Promise<ThrowawayDb> {
  const name = `${prefix}_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    name,
    drop: async () => {
      const c = new Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
