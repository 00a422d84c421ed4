-- Envelope encryption of vault token values (docs/adr/0066-envelope-encrypted-vault.md):
-- key_id names the key-encryption key the row's data key is wrapped under, wrapped_key holds
-- that wrapped data key. Rows written before stay as they are (both NULL: the v1 format, directly
-- under VAULT_ENCRYPTION_KEY) until `pag vault rotate-key` moves them.

-- AlterTable
ALTER TABLE "proxy"."vault_tokens" ADD COLUMN "key_id" TEXT,
ADD COLUMN "wrapped_key" TEXT;

-- CreateIndex
CREATE INDEX "vault_tokens_key_id_idx" ON "proxy"."vault_tokens"("key_id");
