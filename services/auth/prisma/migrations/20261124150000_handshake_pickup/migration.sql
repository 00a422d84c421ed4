-- Handshake token pickup (docs/adr/0058): an agent may give a PKCE-style proof when it asks
-- (code_challenge = BASE64URL(SHA-256(verifier)), method S256 only); once the owner approves, it
-- collects its token itself with the verifier, once. Only the challenge rests here, never the
-- verifier nor the token; token_collected_at marks the one collection (null: not collected).
ALTER TABLE "auth"."handshakes" ADD COLUMN "code_challenge" TEXT;
ALTER TABLE "auth"."handshakes" ADD COLUMN "token_collected_at" TIMESTAMPTZ(3);
