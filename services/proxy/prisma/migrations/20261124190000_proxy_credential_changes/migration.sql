-- Every change to a connection or a vault token is announced on the channel `proxy_credentials`
-- (delivered at commit), whoever makes it: the proxy, `pag`, a refresh, a key rotation, an operator's
-- SQL. Each proxy replica listens and drops its in-memory copy of that (account, service)'s credential
-- (services/proxy/src/store/credential-changes.ts, docs/adr/0067). Payload: `<account id> <service>`,
-- or `*` when a table was truncated. Only last_used_at changing is no change of the credential.

CREATE FUNCTION "proxy"."announce_credential_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND TG_TABLE_NAME = 'vault_tokens'
     AND (to_jsonb(NEW) - 'last_used_at') = (to_jsonb(OLD) - 'last_used_at') THEN
    RETURN NULL;
  END IF;
  IF TG_OP <> 'INSERT' THEN
    PERFORM pg_notify('proxy_credentials', OLD.account_id::text || ' ' || OLD.service);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM pg_notify('proxy_credentials', NEW.account_id::text || ' ' || NEW.service);
  END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION "proxy"."announce_credentials_truncated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('proxy_credentials', '*');
  RETURN NULL;
END
$$;

CREATE TRIGGER "connections_announce_change" AFTER INSERT OR UPDATE OR DELETE ON "proxy"."connections"
    FOR EACH ROW EXECUTE FUNCTION "proxy"."announce_credential_change"();

CREATE TRIGGER "vault_tokens_announce_change" AFTER INSERT OR UPDATE OR DELETE ON "proxy"."vault_tokens"
    FOR EACH ROW EXECUTE FUNCTION "proxy"."announce_credential_change"();

CREATE TRIGGER "connections_announce_truncate" AFTER TRUNCATE ON "proxy"."connections"
    FOR EACH STATEMENT EXECUTE FUNCTION "proxy"."announce_credentials_truncated"();

CREATE TRIGGER "vault_tokens_announce_truncate" AFTER TRUNCATE ON "proxy"."vault_tokens"
    FOR EACH STATEMENT EXECUTE FUNCTION "proxy"."announce_credentials_truncated"();
