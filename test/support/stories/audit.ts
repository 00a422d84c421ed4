/**
 * The audit log after the stories of a file (run it last): every answer the stories got through
 * the target has exactly one row, by its X-Request-Id, and no request has a row without an answer;
 * then `pag audit verify` recomputes the chain and reads `ok <rows> rows` over all of them.
 */
import { describe, expect, test } from '@jest/globals';
import { createPrismaClient } from '../../../packages/kit/src/mod.ts';
import { eventually } from '../../../packages/kit/src/testing/mod.ts';
import { auditDatabase } from '../../../services/audit/src/database.ts';
import { PrismaClient } from '../../../services/audit/src/generated/prisma/client.ts';
import { rowsPerRequest } from '../audit-crash.ts';
import type { Answer, StoryTarget } from './target.ts';

/** What the log gets wrong against the answers, one line each (for one expect() that names them). */
function rowProblems(answers: readonly Answer[], rows: Map<string, number>): string[] {
  const problems: string[] = [];
  const answered = new Set<string>();
  for (const { method, path, status, requestId } of answers) {
    if (requestId === null) continue;
    answered.add(requestId);
    const count = rows.get(requestId) ?? 0;
    if (count !== 1) problems.push(`${method} ${path} (answered ${status}) ${requestId}: ${count} rows`);
  }
  for (const requestId of rows.keys())
    if (!answered.has(requestId)) problems.push(`${requestId}: a row, but no story got its answer`);
  return problems;
}

export function auditStory(target: StoryTarget): void {
  describe('the audit log', () => {
    test('every answer of the stories has its one row, and pag audit verify reads ok', async () => {
      const answers = [...target.answers];
      expect(answers.length).toBeGreaterThan(0);
      // Every answer of the gateway carries its request id, the key of its row.
      expect(answers.filter((answer) => answer.requestId === null)).toEqual([]);
      const db = createPrismaClient(PrismaClient, {
        databaseUrl: target.databaseUrl,
        schema: auditDatabase.schema,
      });
      try {
        // The gateway answers once the event is on the stream; the audit service writes it after.
        const rows = await eventually(
          async () => {
            const rows = await rowsPerRequest(db);
            const unwritten = answers.filter((answer) => !rows.has(answer.requestId ?? ''));
            expect(unwritten).toEqual([]);
            return rows;
          },
          { what: 'the audit log holds a row for every answer', timeoutMs: 60_000, intervalMs: 200 },
        );
        expect(rowProblems(answers, rows)).toEqual([]);
        const [before] = await db.$queryRaw<{ rows: bigint }[]>`SELECT count(*) AS rows FROM audit.records`;
        const verified = /^ok (\d+) rows$/.exec((await target.pag('audit', 'verify')).at(-1) ?? '');
        expect(verified).not.toBeNull();
        // The auth service's decision events may still be arriving (relayed from its outbox): at least these.
        expect(Number(verified?.[1])).toBeGreaterThanOrEqual(Number(before?.rows));
      } finally {
        await db.$disconnect();
      }
      // The wait for the rows, then `pag audit verify` (against containers: a container of its own).
    }, 180_000);
  });
}
