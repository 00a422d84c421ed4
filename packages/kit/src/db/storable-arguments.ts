/**
 * The last line before PostgreSQL, for every query of every service (model calls, raw SQL and
 * interactive transactions alike): an argument holding text PostgreSQL cannot store as sent (a
 * NUL character, an unpaired surrogate: contracts' storable-text.ts) is refused with a 400
 * INVALID_TEXT before anything is sent. Without it such text fails inside PostgreSQL (22021,
 * 22P05), which every caller would answer with a 500, or, an unpaired surrogate in a text column,
 * is silently stored as U+FFFD. Input rules at each boundary come first and name the field; this
 * catches what slipped past them.
 *
 * A query extension rather than a wrapped driver adapter: Prisma turns whatever the adapter throws
 * with a `code` into a PrismaClientKnownRequestError (runtime `handleRequestError`), so an
 * AppError would lose its class there; from a query extension it reaches the caller as itself.
 */
import { AppError, findUnstorableText } from '@pag/contracts';

interface QueryHook {
  args: unknown;
  query: (args: unknown) => Promise<unknown>;
}

/** The `query` component of a Prisma client extension that applies the check. */
export const storableArguments = {
  query: {
    $allOperations({ args, query }: QueryHook): Promise<unknown> {
      const found = findUnstorableText(args);
      if (found !== null) throw new AppError('INVALID_TEXT', `A value of the request ${found.reason}.`);
      return query(args);
    },
  },
};
