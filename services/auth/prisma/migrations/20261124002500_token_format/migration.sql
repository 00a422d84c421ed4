-- Every token issued from now on carries the pag_<kind>_ prefix and a keyed tag (docs/adr/0025).
-- The tokens issued before (no prefix, "legacy") keep working until the last of them expires:
-- that moment is recorded once, here, when no prefixed token exists yet. NULL: there were none,
-- so no legacy token is ever looked up.
CREATE TABLE "auth"."token_format" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "legacy_until" TIMESTAMPTZ(3),

    CONSTRAINT "token_format_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "token_format_one_row" CHECK ("id" = 1)
);

INSERT INTO "auth"."token_format" ("id", "legacy_until")
SELECT 1, max("expires_at") FROM "auth"."oidc_payloads"
 WHERE "model" IN ('AccessToken', 'RefreshToken') AND "expires_at" > now();
