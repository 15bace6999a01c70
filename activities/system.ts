import type { ActivityDeps } from './deps';

/** Side effects of the platform self-check workflow. */
export function systemActivities({ db }: ActivityDeps) {
  return {
    /** Proves the worker can reach PostgreSQL: returns the database's name and clock. */
    async checkDatabase(): Promise<{ database: string; now: string }> {
      const { rows } = await db.raw<{ rows: { database: string; now: Date }[] }>(
        'select current_database() as database, now() as now',
      );
      const row = rows[0]!;
      return { database: row.database, now: row.now.toISOString() };
    },
  };
}

/** The activities of the system check workflow (workflows/system-check.ts): the one type that workflow imports. */
export type SystemActivities = ReturnType<typeof systemActivities>;
