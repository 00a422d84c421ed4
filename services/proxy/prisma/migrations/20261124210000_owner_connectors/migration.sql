-- The owner's own OAuth clients and generic OAuth 2.0 connectors, entered on /dashboard/services or
-- with `pag connector` (docs/adr/0068). One row per account and connector name: `definition` NULL is
-- a client for a connector of the catalogue or the deployment; otherwise the owner's own connector.
-- The client secret is sealed like a vault token (envelope: key_id, wrapped_key), bound to the row's
-- id, account and service. Changes are announced on `proxy_credentials` like connections and vault
-- tokens, so every replica drops its copy of the account's connectors and credentials.

-- CreateTable
CREATE TABLE "proxy"."owner_connectors" (
    "account_id" UUID NOT NULL,
    "service" TEXT NOT NULL,
    "id" UUID NOT NULL,
    "definition" JSONB,
    "client_id" TEXT NOT NULL,
    "encrypted_secret" TEXT NOT NULL,
    "key_id" TEXT NOT NULL,
    "wrapped_key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "owner_connectors_pkey" PRIMARY KEY ("account_id","service")
);

-- CreateIndex
CREATE UNIQUE INDEX "owner_connectors_id_key" ON "proxy"."owner_connectors"("id");

-- CreateIndex
CREATE INDEX "owner_connectors_key_id_idx" ON "proxy"."owner_connectors"("key_id");

CREATE TRIGGER "owner_connectors_announce_change" AFTER INSERT OR UPDATE OR DELETE ON "proxy"."owner_connectors"
    FOR EACH ROW EXECUTE FUNCTION "proxy"."announce_credential_change"();

CREATE TRIGGER "owner_connectors_announce_truncate" AFTER TRUNCATE ON "proxy"."owner_connectors"
    FOR EACH STATEMENT EXECUTE FUNCTION "proxy"."announce_credentials_truncated"();
