import type { Knex } from 'knex';

/**
 * One aggregate query over many raw rows, on its own connection, with room to sort in memory:
 * percentiles and distinct counts sort every row of their groups, and a day of calls or a month
 * of spans spilled to disk at the default work_mem (4 MB). Callers run several side by side.
 * `T`: the row the caller's SQL selects.
 */
export const sortingQuery = <T>(db: Knex, sql: string, args: readonly Knex.RawBinding[]): Promise<T[]> =>
  db.transaction(async (trx) => {
    await trx.raw(`set local work_mem = '128MB'`);
    return (await trx.raw<{ rows: T[] }>(sql, args)).rows;
  });
