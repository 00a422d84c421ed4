-- A token is read together with its grant (store/oidc-adapter.ts joins on grant_id with
-- model = 'Grant'). The grant_id index also holds every token of the grant; this partial index
-- holds the grant rows only, so the join is one index probe however many tokens a grant has.
-- Partial indexes are not expressible in schema.prisma; test/schema.test.ts compares columns.
CREATE INDEX "oidc_payloads_grant_rows_idx" ON "auth"."oidc_payloads"("grant_id") WHERE "model" = 'Grant';
