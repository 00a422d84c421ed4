-- The memory's version per account: every statement that inserts, deletes or changes entries of
-- an account adds the rows it touched to `changes` of one of the account's count slots, in its own
-- transaction, so sum(changes) grows with every committed change. The states a statement can see
-- follow one another (a snapshot that sees a commit sees every commit made visible before it),
-- and each adds at least one, so an equal sum means the same memory. The brain keeps each
-- account's context memory with the sum it was read at and reads the entries again only when the
-- sum moved (services/brain/src/store/context-store.ts, docs/adr/0060): a memory of 100,000
-- entries then costs a context what an empty one does, whoever changed it (the brain, `pag
-- memory`, SQL).
ALTER TABLE "brain"."memory_counts" ADD COLUMN "changes" BIGINT NOT NULL DEFAULT 0;
UPDATE "brain"."memory_counts" SET "changes" = "n";

CREATE OR REPLACE FUNCTION "brain"."memory_counts_add"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO "brain"."memory_counts" AS c ("account_id", "slot", "n", "changes")
            SELECT "account_id", floor(random() * 16)::smallint, count(*), count(*) FROM changed GROUP BY "account_id"
        ON CONFLICT ("account_id", "slot") DO UPDATE SET "n" = c."n" + EXCLUDED."n", "changes" = c."changes" + EXCLUDED."changes";
    ELSE
        INSERT INTO "brain"."memory_counts" AS c ("account_id", "slot", "n", "changes")
            SELECT "account_id", floor(random() * 16)::smallint, -count(*), count(*) FROM changed GROUP BY "account_id"
        ON CONFLICT ("account_id", "slot") DO UPDATE SET "n" = c."n" + EXCLUDED."n", "changes" = c."changes" + EXCLUDED."changes";
    END IF;
    RETURN NULL;
END $$;

-- An UPDATE keeps the count and moves the version of every account whose entries it touched,
-- before or after (an entry moved to another account changes both memories).
CREATE FUNCTION "brain"."memory_counts_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO "brain"."memory_counts" AS c ("account_id", "slot", "n", "changes")
        SELECT "account_id", floor(random() * 16)::smallint, 0, count(*)
          FROM (SELECT "account_id" FROM before_update UNION ALL SELECT "account_id" FROM after_update) AS touched
         GROUP BY "account_id"
    ON CONFLICT ("account_id", "slot") DO UPDATE SET "changes" = c."changes" + EXCLUDED."changes";
    RETURN NULL;
END $$;
CREATE TRIGGER "memory_counts_update" AFTER UPDATE ON "brain"."memory_entries"
    REFERENCING OLD TABLE AS before_update NEW TABLE AS after_update
    FOR EACH STATEMENT EXECUTE FUNCTION "brain"."memory_counts_changed"();
