import type { Knex } from 'knex';

/**
 * The proxy keeps API-key auth, provider keys and rate-limit settings in a per-process memo so the
 * hot path needs no database round trip. These triggers announce every change on the channel
 * `proxy_invalidate` (delivered at commit), so every api replica drops the stale entry at once:
 * a revoked key stops working immediately, not after a TTL.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create or replace function proxy_notify_api_key() returns trigger language plpgsql as $$
    begin
      -- last_used_at bookkeeping changes nothing the proxy caches.
      if tg_op = 'UPDATE' and old.is_active = new.is_active and old.scope = new.scope
         and old.key_hash = new.key_hash and old.project_id = new.project_id and old.org_id = new.org_id then
        return null;
      end if;
      perform pg_notify('proxy_invalidate', 'api_key:' || coalesce(old.key_hash, new.key_hash));
      return null;
    end $$;
    create trigger api_keys_proxy_invalidate after update or delete on api_keys
      for each row execute function proxy_notify_api_key();

    create or replace function proxy_notify_provider_key() returns trigger language plpgsql as $$
    declare r record;
    begin
      r := coalesce(new, old);
      perform pg_notify('proxy_invalidate', 'provider_key:' || r.project_id || ':' || r.provider);
      if tg_op = 'UPDATE' and (old.project_id, old.provider) is distinct from (new.project_id, new.provider) then
        perform pg_notify('proxy_invalidate', 'provider_key:' || old.project_id || ':' || old.provider);
      end if;
      return null;
    end $$;
    create trigger provider_keys_proxy_invalidate after insert or update or delete on provider_keys
      for each row execute function proxy_notify_provider_key();

    create or replace function proxy_notify_rate_limit() returns trigger language plpgsql as $$
    begin
      perform pg_notify('proxy_invalidate', 'rate_limit:' || coalesce(new.project_id, old.project_id));
      return null;
    end $$;
    create trigger rate_limits_proxy_invalidate after insert or update or delete on rate_limits
      for each row execute function proxy_notify_rate_limit();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop trigger if exists api_keys_proxy_invalidate on api_keys;
    drop trigger if exists provider_keys_proxy_invalidate on provider_keys;
    drop trigger if exists rate_limits_proxy_invalidate on rate_limits;
    drop function if exists proxy_notify_api_key(), proxy_notify_provider_key(), proxy_notify_rate_limit();
  `);
}
