-- Every token issued from now on carries the pag_<kind>_ prefix and a keyed tag (docs/adr/0025).
-- Tokens without it ("legacy") keep working until the last of them expires. This column marks
-- their rows: true for every row written before, and for rows a replica of the previous version
-- writes during a rolling upgrade (it does not know the column); the adapter now writes it
-- itself, true only for an access or refresh token without the prefix.
ALTER TABLE "auth"."oidc_payloads" ADD COLUMN "legacy" BOOLEAN NOT NULL DEFAULT true;
