-- Issue 12: the owner edits personas, knowledge, identity and memory; agents chat.

-- Personas: which one is the default, and which agents have one of their own, move out of the
-- persona row into two small tables, so one persona can serve several agents and "the persona
-- that applies" stays one lookup. Both reference the persona with the account in the key, so an
-- assignment can never point at another account's persona.
CREATE UNIQUE INDEX "personas_account_id_id_key" ON "brain"."personas"("account_id", "id");

CREATE TABLE "brain"."persona_defaults" (
    "account_id" UUID NOT NULL,
    "persona_id" TEXT NOT NULL,

    CONSTRAINT "persona_defaults_pkey" PRIMARY KEY ("account_id"),
    CONSTRAINT "persona_defaults_persona_fkey" FOREIGN KEY ("account_id", "persona_id")
        REFERENCES "brain"."personas"("account_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE
);
-- (Prisma's one-to-one relation wants the referencing pair unique.)
CREATE UNIQUE INDEX "persona_defaults_account_id_persona_id_key" ON "brain"."persona_defaults"("account_id", "persona_id");

CREATE TABLE "brain"."persona_assignments" (
    "account_id" UUID NOT NULL,
    "agent_id" TEXT NOT NULL,
    "persona_id" TEXT NOT NULL,
    "assigned_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "persona_assignments_pkey" PRIMARY KEY ("account_id", "agent_id"),
    CONSTRAINT "persona_assignments_persona_fkey" FOREIGN KEY ("account_id", "persona_id")
        REFERENCES "brain"."personas"("account_id", "id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "persona_assignments_account_id_persona_id_idx" ON "brain"."persona_assignments"("account_id", "persona_id");

INSERT INTO "brain"."persona_defaults" ("account_id", "persona_id")
    SELECT "account_id", "id" FROM "brain"."personas" WHERE "agent_id" IS NULL;
INSERT INTO "brain"."persona_assignments" ("account_id", "agent_id", "persona_id")
    SELECT "account_id", "agent_id", "id" FROM "brain"."personas" WHERE "agent_id" IS NOT NULL;

DROP INDEX "brain"."personas_account_id_agent_id_key";
ALTER TABLE "brain"."personas" DROP COLUMN "agent_id";
-- A persona is named once per account (`pag persona set --name N` finds it by name).
-- Existing duplicates (none could be made before this issue: nothing wrote personas) would fail here.
CREATE UNIQUE INDEX "personas_account_id_name_key" ON "brain"."personas"("account_id", "name");

-- Knowledge: when a document was created, and full-text search over title (weight A) and
-- content (weight B) with English stemming. The GIN index is on the expression
-- brain.knowledge_search(title, content); queries must use the same function to use it.
ALTER TABLE "brain"."knowledge_documents" ADD COLUMN "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
UPDATE "brain"."knowledge_documents" SET "created_at" = "updated_at";

CREATE FUNCTION "brain"."knowledge_search"(title TEXT, content TEXT) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN setweight(to_tsvector('english'::regconfig, title), 'A')
        || setweight(to_tsvector('english'::regconfig, content), 'B');
CREATE INDEX "knowledge_documents_search_idx" ON "brain"."knowledge_documents"
    USING GIN ("brain"."knowledge_search"("title", "content"));

-- Memory: full-text search over the content (same configuration), and who-wrote-what listing.
CREATE FUNCTION "brain"."memory_search"(content TEXT) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN to_tsvector('english'::regconfig, content);
CREATE INDEX "memory_entries_search_idx" ON "brain"."memory_entries"
    USING GIN ("brain"."memory_search"("content"));
CREATE INDEX "memory_entries_account_id_agent_id_seq_idx" ON "brain"."memory_entries"("account_id", "agent_id", "seq" DESC);

-- The one search of the brain (the knowledge-base ?q=, the owner's memory search, the chat's
-- retrieval): the words of a text, stemmed as the indexes are, joined with OR, so any word
-- matches and ts_rank_cd ranks documents with more (and closer) matches first. Stop words drop
-- out; a text of stop words alone is an empty query, which matches nothing. At most 32 words.
CREATE FUNCTION "brain"."any_word_query"(words TEXT) RETURNS tsquery
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN (
        SELECT coalesce(string_agg(quote_literal(lexeme), ' | '), '')::tsquery
        FROM (SELECT lexeme FROM unnest(to_tsvector('english'::regconfig, words)) LIMIT 32) AS w
    );

-- Memory counts: the context says how many entries an owner has without counting them. Each
-- statement that inserts or deletes entries adds its count to one of 16 slots of the account
-- (chosen at random, so concurrent writers of one owner rarely wait on the same row); the count
-- is the sum of the slots, exact, in the writer's own transaction.
CREATE TABLE "brain"."memory_counts" (
    "account_id" UUID NOT NULL,
    "slot" SMALLINT NOT NULL,
    "n" BIGINT NOT NULL,

    CONSTRAINT "memory_counts_pkey" PRIMARY KEY ("account_id", "slot")
);
INSERT INTO "brain"."memory_counts" ("account_id", "slot", "n")
    SELECT "account_id", 0, count(*) FROM "brain"."memory_entries" GROUP BY "account_id";

CREATE FUNCTION "brain"."memory_counts_add"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO "brain"."memory_counts" AS c ("account_id", "slot", "n")
            SELECT "account_id", floor(random() * 16)::smallint, count(*) FROM changed GROUP BY "account_id"
        ON CONFLICT ("account_id", "slot") DO UPDATE SET "n" = c."n" + EXCLUDED."n";
    ELSE
        INSERT INTO "brain"."memory_counts" AS c ("account_id", "slot", "n")
            SELECT "account_id", floor(random() * 16)::smallint, -count(*) FROM changed GROUP BY "account_id"
        ON CONFLICT ("account_id", "slot") DO UPDATE SET "n" = c."n" + EXCLUDED."n";
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER "memory_counts_insert" AFTER INSERT ON "brain"."memory_entries"
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION "brain"."memory_counts_add"();
CREATE TRIGGER "memory_counts_delete" AFTER DELETE ON "brain"."memory_entries"
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION "brain"."memory_counts_add"();

-- Chat: conversations belong to the agent that started them (agent_id null: a token without an
-- agent, continued only by such tokens of the same owner); messages are kept in order.
CREATE TABLE "brain"."conversations" (
    "id" TEXT NOT NULL,
    "account_id" UUID NOT NULL,
    "agent_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "conversations_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "conversations_account_id_agent_id_updated_at_idx" ON "brain"."conversations"("account_id", "agent_id", "updated_at" DESC);

CREATE TABLE "brain"."conversation_messages" (
    "id" TEXT NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "conversation_id" TEXT NOT NULL,
    "account_id" UUID NOT NULL,
    "role" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "model" TEXT,
    "sources" JSONB,
    "usage" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "conversation_messages_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "conversation_messages_role_check" CHECK ("role" IN ('user', 'assistant')),
    CONSTRAINT "conversation_messages_conversation_id_fkey" FOREIGN KEY ("conversation_id")
        REFERENCES "brain"."conversations"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "conversation_messages_conversation_id_seq_idx" ON "brain"."conversation_messages"("conversation_id", "seq");

-- The owner's own language-model provider (the deployment's configuration is the default).
-- The API key is sealed (AES-256-GCM, bound to the account) under BRAIN_ENCRYPTION_KEY.
CREATE TABLE "brain"."provider_settings" (
    "account_id" UUID NOT NULL,
    "base_url" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "api_key_sealed" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "provider_settings_pkey" PRIMARY KEY ("account_id")
);
