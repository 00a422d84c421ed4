-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "brain";

-- CreateTable
CREATE TABLE "brain"."memory_entries" (
    "id" TEXT NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "agent_id" TEXT,
    "content" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "memory_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "brain"."personas" (
    "id" TEXT NOT NULL,
    "account_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "soul_content" TEXT NOT NULL,
    "agent_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "personas_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "brain"."identity_profiles" (
    "account_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "email" TEXT,
    "timezone" TEXT,
    "locale" TEXT,
    "summary" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "identity_profiles_pkey" PRIMARY KEY ("account_id")
);

-- CreateTable
CREATE TABLE "brain"."knowledge_documents" (
    "id" TEXT NOT NULL,
    "account_id" UUID NOT NULL,
    "title" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "knowledge_documents_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "memory_entries_account_id_seq_idx" ON "brain"."memory_entries"("account_id", "seq" DESC);

-- CreateIndex: one persona per agent and one default (agent_id NULL) per account. NULLS NOT
-- DISTINCT (PostgreSQL 15+) is what makes the default unique; Prisma's @@unique cannot say so.
CREATE UNIQUE INDEX "personas_account_id_agent_id_key" ON "brain"."personas"("account_id", "agent_id") NULLS NOT DISTINCT;

-- CreateIndex
CREATE INDEX "knowledge_documents_account_id_updated_at_idx" ON "brain"."knowledge_documents"("account_id", "updated_at" DESC);
