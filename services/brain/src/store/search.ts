/**
 * The brain's one full-text search (PostgreSQL), used by the knowledge base's `?q=`, the owner's
 * memory search and the chat's retrieval, so all three find the same things:
 *
 * - the query is brain.any_word_query(text): the text's words, English-stemmed as the indexes
 *   are, joined with OR (any word matches; at most 32 words; stop words drop out);
 * - documents match on brain.knowledge_search(title, content) (title weighted A, content B) and
 *   memory entries on brain.memory_search(content): the expressions of the GIN indexes;
 * - ranked by ts_rank_cd normalised by the document's length (more, rarer and closer matches
 *   first), ties by id so pages are stable;
 * - each hit carries its best passages from ts_headline, matched words between « and », computed
 *   for the page only: from the content, or from the title when only the title matched (a
 *   passage without a marked word would not show why the document was found).
 *
 * Every query filters by the account (tenancy). A text without searchable words (empty, or stop
 * words only) matches nothing, without asking PostgreSQL.
 */
import type { PrismaClient } from '../generated/prisma/client.ts';

/** ts_headline's options: up to two fragments of 10–30 words, matches marked « ». */
const HEADLINE = 'StartSel=«, StopSel=», MaxFragments=2, MaxWords=30, MinWords=10, FragmentDelimiter=" … "';

export interface Page {
  limit: number;
  offset: number;
}

export interface KnowledgeHit {
  id: string;
  title: string;
  kind: string;
  content: string;
  createdAt: Date;
  updatedAt: Date;
  rank: number;
  highlight: string;
}

export interface MemoryHit {
  id: string;
  content: string;
  agentId: string | null;
  createdAt: Date;
  rank: number;
  highlight: string;
}

/** Whether a text has any word at all to search for (cheap pre-check; PostgreSQL has the last say). */
function searchable(text: string): boolean {
  return /[\p{L}\p{N}]/u.test(text);
}

export async function searchKnowledge(
  prisma: PrismaClient,
  accountId: string,
  text: string,
  page: Page,
): Promise<KnowledgeHit[]> {
  if (!searchable(text)) return [];
  const rows = await prisma.$queryRaw<Array<Omit<KnowledgeHit, 'rank'> & { rank: number | string }>>`
    WITH q AS (SELECT brain.any_word_query(${text}) AS query),
    hits AS (
      SELECT d.id, d.title, d.kind, d.content, d.created_at, d.updated_at,
             ts_rank_cd(brain.knowledge_search(d.title, d.content), q.query, 1) AS rank
        FROM brain.knowledge_documents d, q
       WHERE d.account_id = ${accountId}::uuid
         AND brain.knowledge_search(d.title, d.content) @@ q.query
       ORDER BY rank DESC, d.id
       LIMIT ${page.limit} OFFSET ${page.offset}
    )
    SELECT hits.id, hits.title, hits.kind, hits.content,
           hits.created_at AS "createdAt", hits.updated_at AS "updatedAt", hits.rank::float8 AS rank,
           CASE WHEN to_tsvector('english', hits.content) @@ q.query
                THEN ts_headline('english', hits.content, q.query, ${HEADLINE})
                ELSE ts_headline('english', hits.title, q.query, ${HEADLINE}) END AS highlight
      FROM hits, q
     ORDER BY hits.rank DESC, hits.id`;
  return rows.map((row) => ({ ...row, rank: Number(row.rank) }));
}

export async function searchMemory(
  prisma: PrismaClient,
  accountId: string,
  text: string,
  page: Page & { agentId?: string | null },
): Promise<MemoryHit[]> {
  if (!searchable(text)) return [];
  const byAgent = page.agentId !== undefined;
  const agentId = page.agentId ?? null;
  const rows = await prisma.$queryRaw<Array<Omit<MemoryHit, 'rank'> & { rank: number | string }>>`
    WITH q AS (SELECT brain.any_word_query(${text}) AS query),
    hits AS (
      SELECT m.id, m.content, m.agent_id, m.created_at,
             ts_rank_cd(brain.memory_search(m.content), q.query, 1) AS rank
        FROM brain.memory_entries m, q
       WHERE m.account_id = ${accountId}::uuid
         AND brain.memory_search(m.content) @@ q.query
         AND (NOT ${byAgent} OR m.agent_id IS NOT DISTINCT FROM ${agentId})
       ORDER BY rank DESC, m.id
       LIMIT ${page.limit} OFFSET ${page.offset}
    )
    SELECT hits.id, hits.content, hits.agent_id AS "agentId", hits.created_at AS "createdAt",
           hits.rank::float8 AS rank,
           ts_headline('english', hits.content, q.query, ${HEADLINE}) AS highlight
      FROM hits, q
     ORDER BY hits.rank DESC, hits.id`;
  return rows.map((row) => ({ ...row, rank: Number(row.rank) }));
}
