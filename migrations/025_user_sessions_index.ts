import type { Knex } from 'knex';

/**
 * /users/:id counts one end user's distinct sessions per bucket (issue 29): with session_id in the
 * (project, user, created_at) index that count is an index-only scan, where it read a heap page
 * per call (~60,000 for a busy user's month). Same key, so the same queries use it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    drop index requests_project_user_idx;
    create index requests_project_user_idx on requests (project_id, user_id, created_at desc) include (session_id)
      where user_id is not null;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop index requests_project_user_idx;
    create index requests_project_user_idx on requests (project_id, user_id, created_at desc) where user_id is not null;
  `);
}
