-- AlterEnum: a connection whose provider refused to refresh its token (docs/adr/0065).
ALTER TYPE "proxy"."connection_status" ADD VALUE 'needs_reconnect';

-- AlterEnum: an OAuth refresh token, kept beside the access token it renews.
ALTER TYPE "proxy"."vault_token_kind" ADD VALUE 'oauth2_refresh';

-- AlterTable
ALTER TABLE "proxy"."connections" ADD COLUMN "refreshed_at" TIMESTAMPTZ(3),
ADD COLUMN "refresh_count" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "proxy"."connect_attempts" (
    "state_hash" TEXT NOT NULL,
    "account_id" UUID NOT NULL,
    "service" TEXT NOT NULL,
    "session_hash" TEXT NOT NULL,
    "code_verifier" TEXT,
    "redirect_uri" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "connect_attempts_pkey" PRIMARY KEY ("state_hash")
);

-- CreateIndex
CREATE INDEX "connect_attempts_expires_at_idx" ON "proxy"."connect_attempts"("expires_at");
