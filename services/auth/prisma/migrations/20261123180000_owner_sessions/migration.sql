-- Signing out ends every dashboard session of the owner issued until then (docs/adr/0020).
ALTER TABLE "auth"."accounts" ADD COLUMN "sessions_valid_after" TIMESTAMPTZ(3);
