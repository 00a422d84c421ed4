-- One round trip per batch (docs/adr/0038): the writer sends the batch's rows (as JSON objects
-- keyed by column) and each row's canonical JSON (RFC 8785, made by the writer with the
-- `canonicalize` package), and this function, in the statement's own transaction, takes the
-- append lock, reads the head, skips event ids already stored, chains
-- hash = SHA-256(previous hash ‖ canonical JSON) exactly as src/chain/chain-hash.ts does (verify
-- recomputes it there), and inserts the rows. Before, the same steps were six round trips of an
-- interactive transaction, each waiting behind the HTTP work of the process's event loop.
-- SECURITY INVOKER: it needs the caller's SELECT and INSERT (pag_audit_writer's), nothing more.
CREATE FUNCTION "audit"."append_batch"("batch" JSONB, "contents" TEXT[])
    RETURNS TABLE ("stored" INTEGER, "head_seq" BIGINT, "head_hash" TEXT)
    LANGUAGE plpgsql SET search_path = "audit", pg_temp AS $$
DECLARE
    h_seq BIGINT;
    h_hash TEXT;
    n INTEGER := 0;
    picked RECORD;
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
    FOR picked IN
        SELECT e.i::INTEGER AS i
          FROM jsonb_array_elements("batch") WITH ORDINALITY AS e(row_value, i)
         WHERE NOT EXISTS (SELECT 1 FROM "audit"."records" s
                            WHERE s."event_id" = (e.row_value ->> 'event_id')::UUID)
         ORDER BY e.i
    LOOP
        -- Element assignment grows a plpgsql array in place (an expanded array), `||` copies it.
        n := n + 1;
        prevs[n] := h_hash;
        h_seq := h_seq + 1;
        h_hash := encode(sha256(decode(h_hash, 'hex') || convert_to("contents"[picked.i], 'UTF8')), 'hex');
        picks[n] := picked.i;
        seqs[n] := h_seq;
        hashes[n] := h_hash;
    END LOOP;
    INSERT INTO "audit"."records" ("seq", "event_id", "kind", "source", "request_id", "time",
        "recorded_at", "account_id", "client_id", "agent_id", "token_kind", "actor_type", "actor_id",
        "action", "target", "client_address", "method", "path", "status", "decision", "reason",
        "latency_ms", "bytes_in", "bytes_out", "detail", "prev_hash", "hash")
    SELECT p."seq", j."event_id", j."kind", j."source", j."request_id", j."time", j."recorded_at",
           j."account_id", j."client_id", j."agent_id", j."token_kind", j."actor_type", j."actor_id",
           j."action", j."target", j."client_address", j."method", j."path", j."status", j."decision",
           j."reason", j."latency_ms", j."bytes_in", j."bytes_out", coalesce(j."detail", '{}'),
           p."prev_hash", p."hash"
      FROM jsonb_populate_recordset(NULL::"audit"."records", "batch") WITH ORDINALITY AS j
      JOIN unnest(picks, seqs, prevs, hashes) AS p("i", "seq", "prev_hash", "hash") ON p."i" = j."ordinality";
    RETURN QUERY SELECT n, h_seq, h_hash;
END;
$$;

REVOKE ALL ON FUNCTION "audit"."append_batch"(JSONB, TEXT[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION "audit"."append_batch"(JSONB, TEXT[]) TO "pag_audit_writer";
