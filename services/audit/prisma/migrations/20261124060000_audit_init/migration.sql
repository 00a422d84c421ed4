-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "audit";

-- CreateTable
CREATE TABLE "audit"."records" (
    "seq" BIGINT NOT NULL,
    "event_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "request_id" TEXT NOT NULL,
    "time" TIMESTAMPTZ(3) NOT NULL,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL,
    "account_id" TEXT,
    "client_id" TEXT,
    "agent_id" TEXT,
    "token_kind" TEXT,
    "actor_type" TEXT,
    "actor_id" TEXT,
    "action" TEXT NOT NULL,
    "target" TEXT,
    "client_address" TEXT,
    "method" TEXT,
    "path" TEXT,
    "status" INTEGER,
    "decision" TEXT NOT NULL,
    "reason" TEXT,
    "latency_ms" DECIMAL(12,3),
    "bytes_in" BIGINT,
    "bytes_out" BIGINT,
    "detail" JSONB NOT NULL DEFAULT '{}',
    "prev_hash" TEXT NOT NULL,
    "hash" TEXT NOT NULL,

    CONSTRAINT "records_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "audit"."checkpoints" (
    "seq" BIGINT NOT NULL,
    "hash" TEXT NOT NULL,
    "signed_at" TIMESTAMPTZ(3) NOT NULL,
    "key_id" TEXT NOT NULL,
    "signature" TEXT NOT NULL,

    CONSTRAINT "checkpoints_pkey" PRIMARY KEY ("seq")
);

-- CreateIndex
CREATE UNIQUE INDEX "records_event_id_key" ON "audit"."records"("event_id");

-- CreateIndex
CREATE INDEX "records_account_id_seq_idx" ON "audit"."records"("account_id", "seq" DESC);

-- CreateIndex
CREATE INDEX "records_account_id_agent_id_seq_idx" ON "audit"."records"("account_id", "agent_id", "seq" DESC);

-- Append-only: no UPDATE, DELETE or TRUNCATE, whoever asks. The one exception is retention's
-- DELETE of old records inside audit.prune_through (below): it runs as the tables' owner
-- (SECURITY DEFINER) with a transaction-local flag only that function sets. A superuser can still
-- drop a trigger: that is what the hash chain and the signed checkpoints make detectable.
CREATE FUNCTION "audit"."refuse_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND TG_TABLE_NAME = 'records'
        AND current_setting('audit.pruning', true) = 'on'
        AND current_user = (SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = TG_RELID) THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'audit records are append-only'
        USING ERRCODE = 'P0001', DETAIL = format('%s on %I.%I refused', TG_OP, TG_TABLE_SCHEMA, TG_TABLE_NAME);
END;
$$;

CREATE TRIGGER "records_append_only" BEFORE UPDATE OR DELETE ON "audit"."records"
    FOR EACH ROW EXECUTE FUNCTION "audit"."refuse_change"();
CREATE TRIGGER "records_no_truncate" BEFORE TRUNCATE ON "audit"."records"
    FOR EACH STATEMENT EXECUTE FUNCTION "audit"."refuse_change"();
CREATE TRIGGER "checkpoints_append_only" BEFORE UPDATE OR DELETE ON "audit"."checkpoints"
    FOR EACH ROW EXECUTE FUNCTION "audit"."refuse_change"();
CREATE TRIGGER "checkpoints_no_truncate" BEFORE TRUNCATE ON "audit"."checkpoints"
    FOR EACH STATEMENT EXECUTE FUNCTION "audit"."refuse_change"();

-- Retention: deletes the records with seq <= through, which must leave at least one record and
-- be anchored by a checkpoint at exactly `through` whose hash is that record's hash (verify then
-- starts from the checkpoint's signed hash). Returns the number of records deleted. Checkpoints
-- are kept (a few rows a day). SECURITY DEFINER: it runs as the tables' owner, the only user the
-- triggers let delete, and only while the flag it sets is on.
CREATE FUNCTION "audit"."prune_through"("through" BIGINT) RETURNS BIGINT
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = "audit", pg_temp AS $$
DECLARE
    anchor_hash TEXT;
    deleted BIGINT;
BEGIN
    -- Nothing left to prune (another replica did it): nothing to do.
    IF NOT EXISTS (SELECT 1 FROM "audit"."records" WHERE "seq" <= "through") THEN
        RETURN 0;
    END IF;
    SELECT "hash" INTO anchor_hash FROM "audit"."checkpoints" WHERE "seq" = "through";
    IF anchor_hash IS NULL THEN
        RAISE EXCEPTION 'no checkpoint at % to anchor the pruned log', "through" USING ERRCODE = 'P0001';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM "audit"."records" WHERE "seq" = "through" AND "hash" = anchor_hash) THEN
        RAISE EXCEPTION 'the checkpoint at % does not match record %', "through", "through" USING ERRCODE = 'P0001';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM "audit"."records" WHERE "seq" > "through") THEN
        RAISE EXCEPTION 'pruning through % would leave no record', "through" USING ERRCODE = 'P0001';
    END IF;
    PERFORM set_config('audit.pruning', 'on', true);
    DELETE FROM "audit"."records" WHERE "seq" <= "through";
    GET DIAGNOSTICS deleted = ROW_COUNT;
    PERFORM set_config('audit.pruning', 'off', true);
    RETURN deleted;
END;
$$;

-- The service's role: it reads and appends, nothing else. The service logs in as a LOGIN role
-- that is a member of this one (the embedded stack's `pag_audit`); roles are cluster-wide, so an
-- existing one (e.g. made by a DBA when the migrating user may not create roles) is kept.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'pag_audit_writer') THEN
        CREATE ROLE "pag_audit_writer" NOLOGIN;
    END IF;
END;
$$;

REVOKE ALL ON FUNCTION "audit"."prune_through"(BIGINT) FROM PUBLIC;
GRANT USAGE ON SCHEMA "audit" TO "pag_audit_writer";
GRANT SELECT, INSERT ON "audit"."records", "audit"."checkpoints" TO "pag_audit_writer";
GRANT EXECUTE ON FUNCTION "audit"."prune_through"(BIGINT) TO "pag_audit_writer";
