-- Audit events of owner and operator decisions (docs/adr/0041): each is inserted by the
-- decision's own transaction, so a decision and its event commit together or not at all; the
-- running service relays rows to the AUDIT stream (msgId = event_id) and deletes each once the
-- stream has stored it.
CREATE TABLE "auth"."audit_outbox" (
    "event_id" UUID NOT NULL,
    "event" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_outbox_pkey" PRIMARY KEY ("event_id")
);

-- CreateIndex
CREATE INDEX "audit_outbox_created_at_idx" ON "auth"."audit_outbox"("created_at");

-- Wakes the relay of every running replica once a transaction that wrote rows commits (NOTIFY
-- inside a transaction is delivered at commit, and not at all on rollback).
CREATE FUNCTION "auth"."audit_outbox_notify"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('pag_auth_audit', '');
  RETURN NULL;
END
$$;

CREATE TRIGGER "audit_outbox_notify" AFTER INSERT ON "auth"."audit_outbox"
FOR EACH STATEMENT EXECUTE FUNCTION "auth"."audit_outbox_notify"();
