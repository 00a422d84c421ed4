-- Authentication failures per client address (docs/adr/0026-auth-failure-budget-per-address.md):
-- every replica counts a rejected token in the address's row, so together they allow exactly the
-- budget. "address" is the client address, or its /64 network for IPv6; "failures" counts those
-- since "window_start" (the first failure of the current window). Rows of ended windows are purged.

-- CreateTable
CREATE TABLE "gateway"."auth_failures" (
    "address" TEXT NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "failures" INTEGER NOT NULL,

    CONSTRAINT "auth_failures_pkey" PRIMARY KEY ("address")
);

-- CreateIndex: each replica's refresh of blocked addresses and the purge read by window.
CREATE INDEX "auth_failures_window_start_idx" ON "gateway"."auth_failures"("window_start");
