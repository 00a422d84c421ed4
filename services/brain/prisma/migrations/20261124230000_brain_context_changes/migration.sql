-- Every change to a part of an agent's context (the personas, their assignments, the account's
-- default, the identity profile, the memory's count and version in memory_counts) is announced on
-- the channel `brain_context` (delivered at commit), whoever makes it: the brain, another replica,
-- `pag`, an operator's SQL. Each brain replica listens and drops the parts it keeps for that
-- account's agents (services/brain/src/store/context-changes.ts, docs/adr/0071). One notification
-- per statement, not per row (statement triggers over transition tables): a batch of memory notes
-- announces its account once. Payload: the account ids the statement touched, separated by spaces,
-- or `*` when a table was truncated or the list would not fit in a notification (8,000 bytes).
-- A memory write announces through memory_counts, which its own triggers update.

CREATE FUNCTION "brain"."announce_context_change"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    accounts text;
BEGIN
    -- Each branch reads only the transition tables its trigger defines.
    IF TG_OP = 'INSERT' THEN
        SELECT string_agg(DISTINCT "account_id"::text, ' ') INTO accounts FROM new_rows;
    ELSIF TG_OP = 'DELETE' THEN
        SELECT string_agg(DISTINCT "account_id"::text, ' ') INTO accounts FROM old_rows;
    ELSE
        SELECT string_agg(DISTINCT "account_id"::text, ' ') INTO accounts
          FROM (SELECT "account_id" FROM old_rows UNION ALL SELECT "account_id" FROM new_rows) AS touched;
    END IF;
    IF accounts IS NULL THEN
        RETURN NULL;
    END IF;
    PERFORM pg_notify('brain_context', CASE WHEN length(accounts) > 7900 THEN '*' ELSE accounts END);
    RETURN NULL;
END $$;

CREATE FUNCTION "brain"."announce_context_truncated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('brain_context', '*');
    RETURN NULL;
END $$;

DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['personas', 'persona_assignments', 'persona_defaults', 'identity_profiles', 'memory_counts'] LOOP
        EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON "brain".%I REFERENCING NEW TABLE AS new_rows
                            FOR EACH STATEMENT EXECUTE FUNCTION "brain"."announce_context_change"()',
                       t || '_announce_insert', t);
        EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON "brain".%I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
                            FOR EACH STATEMENT EXECUTE FUNCTION "brain"."announce_context_change"()',
                       t || '_announce_update', t);
        EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON "brain".%I REFERENCING OLD TABLE AS old_rows
                            FOR EACH STATEMENT EXECUTE FUNCTION "brain"."announce_context_change"()',
                       t || '_announce_delete', t);
        EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON "brain".%I
                            FOR EACH STATEMENT EXECUTE FUNCTION "brain"."announce_context_truncated"()',
                       t || '_announce_truncate', t);
    END LOOP;
END $$;
