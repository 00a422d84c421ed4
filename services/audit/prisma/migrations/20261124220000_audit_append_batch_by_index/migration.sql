-- audit.append_batch, the same steps and guarantees, with plans that no longer depend on the
-- table's size when a session first ran it (docs/adr/0072). plpgsql keeps a statement's plan for
-- the life of the connection; the writer's connection planned the duplicate check of the first
-- version (NOT EXISTS over jsonb_array_elements, which the planner counts as 100 rows) while
-- audit.records was empty or small, chose a hash anti join over a sequential scan of the whole
-- table, and kept it: every append then read every row (about 12 ms per append at 20,000 rows,
-- growing with the log) until an ANALYZE happened to invalidate the plan.
-- Now each event id is looked up by equality (records_event_id_key: one probe per event), the
-- rows are inserted from the picked elements directly (no join between the batch and the
-- picks), and the function runs with enable_seqscan off, so a plan made on an empty table is
-- still an index probe on a large one. Only this function's statements see the setting (a
-- function's SET clause lasts for the call). Signature, grants (kept by CREATE OR REPLACE),
-- the lock, the head read, the chain and the result are those of 20261124070000.
CREATE OR REPLACE FUNCTION "audit"."append_batch"("batch" JSONB, "contents" TEXT[])
    RETURNS TABLE ("stored" INTEGER, "head_seq" BIGINT, "head_hash" TEXT)
    LANGUAGE plpgsql SET search_path = "audit", pg_temp SET enable_seqscan = off AS $$
DECLARE
    h_seq BIGINT;
    h_hash TEXT;
    n INTEGER := 0;
    i INTEGER := 0;
    element JSONB;
    picks INTEGER[] := '{}';
    seqs BIGINT[] := '{}';
    prevs TEXT[] := '{}';
    hashes TEXT[] := '{}';
BEGIN
    IF jsonb_array_length("batch") <> coalesce(array_length("contents", 1), 0) THEN
        RAISE EXCEPTION 'append_batch: % rows but % contents', jsonb_array_length("batch"),
            coalesce(array_length("contents", 1), 0) USING ERRCODE = '22023';
    END IF;
    -- The append lock of src/store/chain-head.ts (APPEND_LOCK_KEY, "pag_audi" in ASCII).
    PERFORM pg_advisory_xact_lock(8097867264343499881);
    SELECT r."seq", r."hash" INTO h_seq, h_hash FROM "audit"."records" r ORDER BY r."seq" DESC LIMIT 1;
    IF h_seq IS NULL THEN
        SELECT c."seq", c."hash" INTO h_seq, h_hash FROM "audit"."checkpoints" c ORDER BY c."seq" DESC LIMIT 1;
    END IF;
    IF h_seq IS NULL THEN
        h_seq := 0;
        h_hash := repeat('0', 64);
    END IF;
    FOR element IN SELECT e FROM jsonb_array_elements("batch") AS e LOOP
        i := i + 1;
        -- An id stored already (a redelivered event) is skipped; one probe of the unique index.
        CONTINUE WHEN EXISTS (SELECT FROM "audit"."records" s WHERE s."event_id" = (element ->> 'event_id')::UUID);
        -- Element assignment grows a plpgsql array in place (an expanded array), `||` copies it.
        n := n + 1;
        prevs[n] := h_hash;
        h_seq := h_seq + 1;
        h_hash := encode(sha256(decode(h_hash, 'hex') || convert_to("contents"[i], 'UTF8')), 'hex');
        picks[n] := i;
        seqs[n] := h_seq;
        hashes[n] := h_hash;
    END LOOP;
    -- Each picked element read by its position (`->` on a JSONB array is direct), beside its
    -- chain columns: no join for the planner to choose.
    INSERT INTO "audit"."records" ("seq", "event_id", "kind", "source", "request_id", "time",
        "recorded_at", "account_id", "client_id", "agent_id", "token_kind", "actor_type", "actor_id",
        "action", "target", "client_address", "method", "path", "status", "decision", "reason",
        "latency_ms", "bytes_in", "bytes_out", "detail", "prev_hash", "hash")
    SELECT p."seq", j."event_id", j."kind", j."source", j."request_id", j."time", j."recorded_at",
           j."account_id", j."client_id", j."agent_id", j."token_kind", j."actor_type", j."actor_id",
           j."action", j."target", j."client_address", j."method", j."path", j."status", j."decision",
           j."reason", j."latency_ms", j."bytes_in", j."bytes_out", coalesce(j."detail", '{}'),
           p."prev_hash", p."hash"
      FROM unnest(picks, seqs, prevs, hashes) AS p("i", "seq", "prev_hash", "hash")
     CROSS JOIN LATERAL jsonb_populate_record(NULL::"audit"."records", "batch" -> (p."i" - 1)) AS j;
    RETURN QUERY SELECT n, h_seq, h_hash;
END;
$$;
