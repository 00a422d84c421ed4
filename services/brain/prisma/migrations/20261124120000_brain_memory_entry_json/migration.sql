-- Each memory entry also as its JSON text, exactly as the context carries it (MemoryEntry: id,
-- content, agentId, createdAt in toISOString's form), written with the row. The context's memory
-- is then those texts joined (string_agg) instead of an object built per entry and read
-- (json_agg) on every context: PostgreSQL's share of carrying 200 entries roughly halved, and the
-- brain and the gateway hand the array on as text (docs/adr/0043, "Third round").
--
-- IMMUTABLE is true of these arguments: the time is written in UTC with a pattern that has no
-- locale-dependent part (to_char itself is only STABLE for patterns such as TMMonth), and
-- row_to_json of texts depends on no setting. A generated column needs it, and a generated column
-- is what keeps the text right for every writer (the brain, `pag memory`, SQL) and every update.
CREATE FUNCTION "brain"."memory_entry_json"(id TEXT, content TEXT, agent_id TEXT, created_at TIMESTAMPTZ)
    RETURNS TEXT LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN (
        SELECT row_to_json(e)::text
          FROM (SELECT id, content, agent_id AS "agentId",
                       to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt") AS e
    );

ALTER TABLE "brain"."memory_entries" ADD COLUMN "entry_json" TEXT NOT NULL
    GENERATED ALWAYS AS ("brain"."memory_entry_json"("id", "content", "agent_id", "created_at")) STORED;
