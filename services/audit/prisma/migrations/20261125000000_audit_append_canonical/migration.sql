-- audit.append_batch from the canonical JSON alone (docs/adr/0073): the writer sends one JSON
-- array of the rows' canonical JSON texts (RFC 8785, chain-hash.ts), which are both what the
-- chain hashes and the row's columns (camelCase keys, read with json_to_record). Before, it also
-- sent every row again as a JSONB object keyed by column and the texts as a TEXT[]: the writer
-- built and escaped each row twice, and PostgreSQL parsed the batch as JSONB and ran two
-- statements per row in a plpgsql loop (the id probe, the loop's fetch). Now the ids already
-- stored are dropped by one statement (one probe of records_event_id_key per event, as before),
-- the loop only chains the hashes, and one INSERT writes the rows.
-- The lock, the head read, the chain, the result and enable_seqscan (docs/adr/0072) are those of
-- 20261124220000. The two-argument version stays for a writer of the previous release still
-- running during an update; nothing of this release calls it.
CREATE FUNCTION "audit"."append_batch"("contents" JSON)
    RETURNS TABLE ("stored" INTEGER, "head_seq" BIGINT, "head_hash" TEXT)
    LANGUAGE plpgsql SET search_path = "audit", pg_temp SET enable_seqscan = off AS $$
DECLARE
    h_seq BIGINT;
    h_hash TEXT;
    fresh TEXT[];
    content TEXT;
    n INTEGER := 0;
    prevs TEXT[] := '{}';
    hashes TEXT[] := '{}';
BEGIN
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
    -- The texts whose event id is not stored yet (a redelivered event is skipped), in the
    -- batch's order. OFFSET 0 keeps the NOT EXISTS a probe per text: without it the planner
    -- makes it an anti join and, seq scans being off, hashes every entry of the unique index.
    SELECT coalesce(array_agg(e."c" ORDER BY e."i"), '{}') INTO fresh
      FROM json_array_elements_text("contents") WITH ORDINALITY AS e("c", "i")
     WHERE NOT EXISTS (SELECT FROM "audit"."records" s
                        WHERE s."event_id" = (e."c"::JSON ->> 'eventId')::UUID OFFSET 0);
    -- Element assignment grows a plpgsql array in place (an expanded array), `||` copies it.
    FOREACH content IN ARRAY fresh LOOP
        n := n + 1;
        prevs[n] := h_hash;
        h_hash := encode(sha256(decode(h_hash, 'hex') || convert_to(content, 'UTF8')), 'hex');
        hashes[n] := h_hash;
    END LOOP;
    INSERT INTO "audit"."records" ("seq", "event_id", "kind", "source", "request_id", "time",
        "recorded_at", "account_id", "client_id", "agent_id", "token_kind", "actor_type", "actor_id",
        "action", "target", "client_address", "method", "path", "status", "decision", "reason",
        "latency_ms", "bytes_in", "bytes_out", "detail", "prev_hash", "hash")
    SELECT h_seq + p."i", j."eventId", j."kind", j."source", j."requestId", j."time", j."recordedAt",
           j."accountId", j."clientId", j."agentId", j."tokenKind", j."actorType", j."actorId",
           j."action", j."target", j."clientAddress", j."method", j."path", j."status", j."decision",
           j."reason", j."latencyMs", j."bytesIn", j."bytesOut", j."detail", p."prev_hash", p."hash"
      FROM unnest(fresh, prevs, hashes) WITH ORDINALITY AS p("content", "prev_hash", "hash", "i")
     CROSS JOIN LATERAL json_to_record(p."content"::JSON) AS j("eventId" UUID, "kind" TEXT,
           "source" TEXT, "requestId" TEXT, "time" TIMESTAMPTZ, "recordedAt" TIMESTAMPTZ,
           "accountId" TEXT, "clientId" TEXT, "agentId" TEXT, "tokenKind" TEXT, "actorType" TEXT,
           "actorId" TEXT, "action" TEXT, "target" TEXT, "clientAddress" TEXT, "method" TEXT,
           "path" TEXT, "status" INTEGER, "decision" TEXT, "reason" TEXT, "latencyMs" NUMERIC,
           "bytesIn" BIGINT, "bytesOut" BIGINT, "detail" JSONB);
    RETURN QUERY SELECT n, h_seq + n, h_hash;
END;
$$;
REVOKE ALL ON FUNCTION "audit"."append_batch"(JSON) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION "audit"."append_batch"(JSON) TO "pag_audit_writer";
