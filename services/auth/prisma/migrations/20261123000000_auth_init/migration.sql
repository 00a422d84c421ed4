-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "auth";

-- CreateEnum
CREATE TYPE "auth"."plan" AS ENUM ('free', 'pro', 'heavy');

-- CreateTable
CREATE TABLE "auth"."accounts" (
    "id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "password_hash" TEXT NOT NULL,
    "plan" "auth"."plan" NOT NULL DEFAULT 'free',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "auth"."login_attempts" (
    "key_hash" TEXT NOT NULL,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "last_failure_at" TIMESTAMPTZ(3) NOT NULL,
    "locked_until" TIMESTAMPTZ(3),

    CONSTRAINT "login_attempts_pkey" PRIMARY KEY ("key_hash")
);

-- CreateTable
CREATE TABLE "auth"."oidc_payloads" (
    "model" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "grant_id" TEXT,
    "user_code" TEXT,
    "uid" TEXT,
    "account_id" TEXT,
    "client_id" TEXT,
    "expires_at" TIMESTAMPTZ(3),
    "consumed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oidc_payloads_pkey" PRIMARY KEY ("model","id")
);

-- CreateTable
CREATE TABLE "auth"."signing_keys" (
    "kid" TEXT NOT NULL,
    "alg" TEXT NOT NULL,
    "encrypted_jwk" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retired_at" TIMESTAMPTZ(3),

    CONSTRAINT "signing_keys_pkey" PRIMARY KEY ("kid")
);

-- CreateIndex
CREATE UNIQUE INDEX "accounts_email_key" ON "auth"."accounts"("email");

-- CreateIndex
CREATE INDEX "login_attempts_last_failure_at_idx" ON "auth"."login_attempts"("last_failure_at");

-- CreateIndex
CREATE INDEX "oidc_payloads_grant_id_idx" ON "auth"."oidc_payloads"("grant_id");

-- CreateIndex
CREATE INDEX "oidc_payloads_uid_idx" ON "auth"."oidc_payloads"("uid");

-- CreateIndex
CREATE INDEX "oidc_payloads_user_code_idx" ON "auth"."oidc_payloads"("user_code");

-- CreateIndex
CREATE INDEX "oidc_payloads_expires_at_idx" ON "auth"."oidc_payloads"("expires_at");

-- CreateIndex
CREATE INDEX "oidc_payloads_account_id_idx" ON "auth"."oidc_payloads"("account_id");

-- CreateIndex
CREATE INDEX "oidc_payloads_client_id_idx" ON "auth"."oidc_payloads"("client_id");

-- CreateIndex
CREATE INDEX "signing_keys_created_at_idx" ON "auth"."signing_keys"("created_at");
