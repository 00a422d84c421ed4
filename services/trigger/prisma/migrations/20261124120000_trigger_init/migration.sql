-- The trigger service's tables, in its own schema. Every row carries the owner's account id.

-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "trigger";

-- A scheduled automation. Runs act as `created_by_agent` with `scopes` (the creating token's),
-- narrowed at each run to what that agent still holds.
CREATE TABLE "trigger"."triggers" (
    "id" TEXT NOT NULL,
    "account_id" UUID NOT NULL,
    "created_by_agent" TEXT NOT NULL,
    "created_by_client" TEXT,
    "name" TEXT NOT NULL,
    "schedule" JSONB NOT NULL,
    "timezone" TEXT NOT NULL,
    "action_type" TEXT NOT NULL,
    "prompt" TEXT NOT NULL,
    "services" TEXT[] NOT NULL,
    "save_output_to_memory" BOOLEAN NOT NULL DEFAULT false,
    "scopes" TEXT[] NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "status_reason" TEXT,
    -- interval schedules: the first run's instant; every run is anchor + k × period.
    "anchor_at" TIMESTAMPTZ(3),
    "next_run_at" TIMESTAMPTZ(3),
    "last_run_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "triggers_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "triggers_status_check" CHECK ("status" IN ('active', 'paused', 'stopped', 'completed')),
    CONSTRAINT "triggers_next_run_check" CHECK ("status" = 'active' OR "next_run_at" IS NULL)
);

-- The owner's list, newest first.
CREATE INDEX "triggers_account_id_created_at_idx" ON "trigger"."triggers" ("account_id", "created_at" DESC);
-- What the scheduler looks for: active triggers that are due.
CREATE INDEX "triggers_due_idx" ON "trigger"."triggers" ("next_run_at") WHERE "status" = 'active';

-- One run of a trigger. A due time is run at most once: (trigger, scheduled_for) is unique for
-- runs of the schedule and catch-up runs; manual runs are their own.
CREATE TABLE "trigger"."runs" (
    "id" TEXT NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "trigger_id" TEXT NOT NULL,
    "account_id" UUID NOT NULL,
    "cause" TEXT NOT NULL,
    "late" BOOLEAN NOT NULL DEFAULT false,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "scheduled_for" TIMESTAMPTZ(3) NOT NULL,
    "queued_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    -- A running run belongs to the scheduler that holds its lease; an expired lease is a crash.
    "lease_until" TIMESTAMPTZ(3),
    "output" TEXT,
    "model" TEXT,
    "memory_id" TEXT,
    "error_code" TEXT,
    "error_message" TEXT,

    CONSTRAINT "runs_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "runs_cause_check" CHECK ("cause" IN ('schedule', 'manual', 'catch_up')),
    CONSTRAINT "runs_status_check" CHECK ("status" IN ('queued', 'running', 'succeeded', 'failed')),
    CONSTRAINT "runs_trigger_id_fkey" FOREIGN KEY ("trigger_id") REFERENCES "trigger"."triggers" ("id") ON DELETE CASCADE
);

CREATE UNIQUE INDEX "runs_trigger_id_scheduled_for_key" ON "trigger"."runs" ("trigger_id", "scheduled_for") WHERE "cause" <> 'manual';
-- A trigger's history, newest first.
CREATE INDEX "runs_trigger_id_seq_idx" ON "trigger"."runs" ("trigger_id", "seq" DESC);
-- What a scheduler claims: queued runs, and running ones whose lease ran out.
CREATE INDEX "runs_open_idx" ON "trigger"."runs" ("status", "queued_at") WHERE "status" IN ('queued', 'running');
