-- CreateEnum
CREATE TYPE "auth"."agent_kind" AS ENUM ('oauth', 'dashboard', 'handshake', 'device');

-- CreateEnum
CREATE TYPE "auth"."agent_status" AS ENUM ('active', 'revoked');

-- CreateEnum
CREATE TYPE "auth"."handshake_status" AS ENUM ('pending', 'approved', 'denied');

-- CreateEnum
CREATE TYPE "auth"."device_status" AS ENUM ('pending', 'approved', 'denied', 'revoked');

-- CreateTable
CREATE TABLE "auth"."agents" (
    "id" TEXT NOT NULL,
    "account_id" UUID NOT NULL,
    "client_id" TEXT NOT NULL,
    "kind" "auth"."agent_kind" NOT NULL,
    "name" TEXT NOT NULL,
    "scopes" TEXT[],
    "daily_limit" INTEGER,
    "monthly_limit" INTEGER,
    "status" "auth"."agent_status" NOT NULL DEFAULT 'active',
    "expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "agents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "auth"."handshakes" (
    "id" TEXT NOT NULL,
    "account_id" UUID,
    "agent_ref" TEXT NOT NULL,
    "requested_scopes" TEXT[],
    "message" TEXT NOT NULL,
    "status" "auth"."handshake_status" NOT NULL DEFAULT 'pending',
    "claim_code_hash" TEXT NOT NULL,
    "client_hash" TEXT NOT NULL,
    "agent_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "decided_at" TIMESTAMPTZ(3),

    CONSTRAINT "handshakes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "auth"."devices" (
    "id" TEXT NOT NULL,
    "account_id" UUID,
    "name" TEXT NOT NULL,
    "public_key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "user_code" TEXT NOT NULL,
    "status" "auth"."device_status" NOT NULL DEFAULT 'pending',
    "agent_id" TEXT,
    "client_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "decided_at" TIMESTAMPTZ(3),

    CONSTRAINT "devices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "auth"."device_assertions" (
    "device_id" TEXT NOT NULL,
    "jti" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "device_assertions_pkey" PRIMARY KEY ("device_id","jti")
);

-- CreateIndex
CREATE INDEX "agents_account_id_created_at_idx" ON "auth"."agents"("account_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "agents_account_id_client_id_key" ON "auth"."agents"("account_id", "client_id");

-- CreateIndex
CREATE UNIQUE INDEX "handshakes_claim_code_hash_key" ON "auth"."handshakes"("claim_code_hash");

-- CreateIndex
CREATE UNIQUE INDEX "handshakes_agent_id_key" ON "auth"."handshakes"("agent_id");

-- CreateIndex
CREATE INDEX "handshakes_account_id_status_created_at_idx" ON "auth"."handshakes"("account_id", "status", "created_at");

-- CreateIndex
CREATE INDEX "handshakes_client_hash_created_at_idx" ON "auth"."handshakes"("client_hash", "created_at");

-- CreateIndex
CREATE INDEX "handshakes_agent_ref_created_at_idx" ON "auth"."handshakes"("agent_ref", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "devices_public_key_key" ON "auth"."devices"("public_key");

-- CreateIndex
CREATE UNIQUE INDEX "devices_user_code_key" ON "auth"."devices"("user_code");

-- CreateIndex
CREATE UNIQUE INDEX "devices_agent_id_key" ON "auth"."devices"("agent_id");

-- CreateIndex
CREATE INDEX "devices_account_id_status_created_at_idx" ON "auth"."devices"("account_id", "status", "created_at");

-- CreateIndex
CREATE INDEX "devices_client_hash_created_at_idx" ON "auth"."devices"("client_hash", "created_at");

-- CreateIndex
CREATE INDEX "device_assertions_expires_at_idx" ON "auth"."device_assertions"("expires_at");

-- AddForeignKey
ALTER TABLE "auth"."agents" ADD CONSTRAINT "agents_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "auth"."accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "auth"."handshakes" ADD CONSTRAINT "handshakes_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "auth"."agents"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "auth"."devices" ADD CONSTRAINT "devices_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "auth"."agents"("id") ON DELETE SET NULL ON UPDATE CASCADE;
