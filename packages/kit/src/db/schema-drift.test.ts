import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import type { TestPostgres } from '../testing/postgres.ts';
import { startTestPostgres } from '../testing/postgres.ts';
import { findSchemaDrift } from './schema-drift.ts';

/** A Prisma schema using what the comparison covers, in Postgres schema `name`. */
function prismaSchema(name: string): string {
  return `
datasource db {
  provider = "postgresql"
  schemas  = ["${name}"]
}

enum Kind {
  a
  b

  @@map("kind")
  @@schema("${name}")
}

model Parent {
  id        String   @id @default(uuid()) @db.Uuid
  email     String   @unique
  name      String
  note      String?
  tags      String[]
  count     Int      @default(0)
  kind      Kind     @default(a)
  amount    Decimal  @db.Decimal(10, 2)
  createdAt DateTime @default(now()) @map("created_at")
  updatedAt DateTime @updatedAt @map("updated_at") @db.Timestamptz(3)
  children  Child[]

  @@index([name, count])
  @@map("parents")
  @@schema("${name}")
}

model Child {
  id       Int    @id @default(autoincrement())
  parentId String @map("parent_id") @db.Uuid
  parent   Parent @relation(fields: [parentId], references: [id])

  @@map("children")
  @@schema("${name}")
}
`;
}

/** The SQL Prisma Migrate generates for prismaSchema(name). */
function migrationSql(name: string): string {
  return `
CREATE SCHEMA IF NOT EXISTS "${name}";
CREATE TYPE "${name}"."kind" AS ENUM ('a', 'b');
CREATE TABLE "${name}"."parents" (
    "id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "note" TEXT,
    "tags" TEXT[],
    "count" INTEGER NOT NULL DEFAULT 0,
    "kind" "${name}"."kind" NOT NULL DEFAULT 'a',
    "amount" DECIMAL(10,2) NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "parents_pkey" PRIMARY KEY ("id")
);
CREATE TABLE "${name}"."children" (
    "id" SERIAL NOT NULL,
    "parent_id" UUID NOT NULL,

    CONSTRAINT "children_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "parents_email_key" ON "${name}"."parents"("email");
CREATE INDEX "parents_name_count_idx" ON "${name}"."parents"("name", "count");
ALTER TABLE "${name}"."children" ADD CONSTRAINT "children_parent_id_fkey" FOREIGN KEY ("parent_id")
  REFERENCES "${name}"."parents"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
`;
}

let postgres: TestPostgres;
let db: pg.Client;
let count = 0;

beforeAll(async () => {
  postgres = await startTestPostgres();
  db = new pg.Client({ connectionString: postgres.url });
  await db.connect();
});

afterAll(async () => {
  await db?.end();
  await postgres?.stop();
});

/** Migrates a fresh schema, then changes it with `change` (`S` stands for the schema), and compares. */
async function driftAfter(change: string): Promise<string[]> {
  count += 1;
  const name = `drift_${count}`;
  await db.query(migrationSql(name));
  await db.query(change.replaceAll('S.', `"${name}".`));
  const problems = await findSchemaDrift({ databaseUrl: postgres.url, schemaText: prismaSchema(name) });
  return problems.map((problem) => problem.replaceAll(name, 'S'));
}

describe('findSchemaDrift', () => {
  test('finds nothing when the SQL is what Prisma would generate', async () => {
    expect(await driftAfter('')).toEqual([]);
  });

  test.each([
    [
      'ALTER TABLE S.parents ALTER COLUMN name DROP NOT NULL',
      'S.parents.name: nullable in the database, NOT NULL in the model',
    ],
    [
      'ALTER TABLE S.parents ALTER COLUMN count TYPE bigint',
      'S.parents.count: type bigint in the database, integer in the model',
    ],
    [
      'ALTER TABLE S.parents ALTER COLUMN updated_at TYPE timestamp(3)',
      'S.parents.updated_at: type timestamp(3) without time zone in the database, timestamp(3) with time zone in the model',
    ],
    ['ALTER TABLE S.parents DROP COLUMN note', 'S.parents.note: column missing (model Parent)'],
    [
      'ALTER TABLE S.parents ADD COLUMN extra TEXT',
      'S.parents.extra: column in the database is not in the model',
    ],
    [
      'ALTER TABLE S.parents ALTER COLUMN created_at DROP DEFAULT',
      'S.parents.created_at: no default in the database, has a default in the model',
    ],
    [
      'ALTER TABLE S.children DROP CONSTRAINT children_pkey, ADD PRIMARY KEY (id, parent_id)',
      'S.children: primary key (id, parent_id) in the database, (id) in the model',
    ],
    ['DROP INDEX S.parents_email_key', 'S.parents: unique index (email) missing'],
    ['CREATE INDEX ON S.parents (note)', 'S.parents: index (note) in the database is not in the model'],
    [
      'ALTER TABLE S.children DROP CONSTRAINT children_parent_id_fkey',
      'S.children: foreign key (parent_id) → S.parents(id) missing',
    ],
    ["ALTER TYPE S.kind ADD VALUE 'c'", 'enum kind: values (a, b, c) in the database, (a, b) in the model'],
    ['CREATE TABLE S.stray (id INTEGER)', 'S.stray: table in the database has no model'],
    ['DROP TABLE S.children', 'S.children: table missing (model Child)'],
  ])('reports %s', async (change, problem) => {
    expect(await driftAfter(change)).toEqual([problem]);
  });
});
