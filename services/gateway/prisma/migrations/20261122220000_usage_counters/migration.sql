-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "gateway";

-- CreateEnum
CREATE TYPE "gateway"."usage_window_kind" AS ENUM ('day', 'month');

-- CreateTable
CREATE TABLE "gateway"."usage_counters" (
    "account_id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "window_kind" "gateway"."usage_window_kind" NOT NULL,
    "window_start" DATE NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "usage_counters_pkey" PRIMARY KEY ("account_id","agent_id","window_kind","window_start")
);
