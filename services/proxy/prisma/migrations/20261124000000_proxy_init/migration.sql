-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "proxy";

-- CreateEnum
CREATE TYPE "proxy"."connection_status" AS ENUM ('connected', 'expired', 'error');

-- CreateEnum
CREATE TYPE "proxy"."vault_token_kind" AS ENUM ('oauth2', 'api_key');

-- CreateTable
CREATE TABLE "proxy"."connections" (
    "account_id" UUID NOT NULL,
    "service" TEXT NOT NULL,
    "status" "proxy"."connection_status" NOT NULL DEFAULT 'connected',
    "connected_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "connections_pkey" PRIMARY KEY ("account_id","service")
);

-- CreateTable
CREATE TABLE "proxy"."vault_tokens" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "service" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "kind" "proxy"."vault_token_kind" NOT NULL,
    "scopes" TEXT[],
    "encrypted_value" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),

    CONSTRAINT "vault_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "vault_tokens_account_id_service_label_key" ON "proxy"."vault_tokens"("account_id", "service", "label");

-- AddForeignKey
ALTER TABLE "proxy"."vault_tokens" ADD CONSTRAINT "vault_tokens_account_id_service_fkey" FOREIGN KEY ("account_id", "service") REFERENCES "proxy"."connections"("account_id", "service") ON DELETE CASCADE ON UPDATE CASCADE;
