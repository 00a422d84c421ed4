-- Reservations (leases) of an agent's allowance by gateway replicas: docs/adr/0016-exact-limits-across-replicas.md.
-- "count" stays what was served; "reserved" is what replicas hold to serve without asking first.
ALTER TABLE "gateway"."usage_counters" ADD COLUMN "reserved" INTEGER NOT NULL DEFAULT 0;

-- One replica's turn at an agent's day and month rows, atomically (one round trip):
--   1. settle: p_settle units it served from its reservations move from "reserved" to "count";
--   2. release: p_release units it reserved and will not serve go back;
--   3. take: p_take (0 or 1) units for a request waiting now, counted as served if both limits allow;
--   4. grant: a block to serve later without asking, at most p_max_block and at most
--      1/p_spread of what is still free, so blocks shrink as the window fills and the last units
--      go one request at a time.
-- NULL limits are no limit. Rows are locked day before month, like every other writer.
CREATE FUNCTION "gateway"."lease_usage"(
    p_account TEXT, p_agent TEXT, p_day DATE, p_month DATE,
    p_limit_day INTEGER, p_limit_month INTEGER,
    p_settle INTEGER, p_release INTEGER, p_take INTEGER, p_max_block INTEGER, p_spread INTEGER,
    p_served_at TIMESTAMPTZ)
RETURNS TABLE (taken INTEGER, granted INTEGER, day_count INTEGER, day_reserved INTEGER,
               month_count INTEGER, month_reserved INTEGER)
LANGUAGE plpgsql AS $$
DECLARE
    d "gateway"."usage_counters"%ROWTYPE;
    m "gateway"."usage_counters"%ROWTYPE;
    free BIGINT;
BEGIN
    -- Counts are not worth a disk flush per request: a crash of PostgreSQL may lose the last
    -- fraction of a second (ADR 13); this transaction only.
    PERFORM set_config('synchronous_commit', 'off', true);
    INSERT INTO "gateway"."usage_counters" (account_id, agent_id, window_kind, window_start)
    VALUES (p_account, p_agent, 'day', p_day), (p_account, p_agent, 'month', p_month)
    ON CONFLICT DO NOTHING;
    SELECT * INTO d FROM "gateway"."usage_counters"
     WHERE account_id = p_account AND agent_id = p_agent AND window_kind = 'day' AND window_start = p_day
       FOR UPDATE;
    SELECT * INTO m FROM "gateway"."usage_counters"
     WHERE account_id = p_account AND agent_id = p_agent AND window_kind = 'month' AND window_start = p_month
       FOR UPDATE;
    d.count := d.count + p_settle;
    m.count := m.count + p_settle;
    d.reserved := GREATEST(0, d.reserved - p_settle - p_release);
    m.reserved := GREATEST(0, m.reserved - p_settle - p_release);
    free := LEAST(COALESCE(p_limit_day::BIGINT - d.count - d.reserved, 2147483647),
                  COALESCE(p_limit_month::BIGINT - m.count - m.reserved, 2147483647));
    taken := LEAST(p_take, GREATEST(free, 0));
    free := free - taken;
    granted := GREATEST(0, LEAST(p_max_block, free / p_spread));
    IF taken > 0 THEN
        p_served_at := now();
    END IF;
    UPDATE "gateway"."usage_counters"
       SET count = d.count + taken, reserved = d.reserved + granted,
           updated_at = CASE WHEN p_settle + taken > 0 THEN GREATEST(updated_at, p_served_at) ELSE updated_at END
     WHERE account_id = p_account AND agent_id = p_agent AND window_kind = 'day' AND window_start = p_day
    RETURNING count, reserved INTO day_count, day_reserved;
    UPDATE "gateway"."usage_counters"
       SET count = m.count + taken, reserved = m.reserved + granted,
           updated_at = CASE WHEN p_settle + taken > 0 THEN GREATEST(updated_at, p_served_at) ELSE updated_at END
     WHERE account_id = p_account AND agent_id = p_agent AND window_kind = 'month' AND window_start = p_month
    RETURNING count, reserved INTO month_count, month_reserved;
    RETURN NEXT;
END
$$;
