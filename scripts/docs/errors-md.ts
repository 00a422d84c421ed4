/**
 * docs/errors.md, rendered from the error catalogue of the contracts: the one table of codes.
 */
import { ErrorCatalogue } from '@pag/contracts';

export function renderErrorsMd(): string {
  const rows = Object.entries(ErrorCatalogue)
    .sort(([, a], [, b]) => a.status - b.status)
    .map(([code, entry]) => `| \`${code}\` | ${entry.status} | ${entry.hint} |`);
  return `# Error codes

Generated from \`packages/contracts/src/errors.ts\` by \`pnpm docs\`; a test fails when it is stale.

Every error response has the body
\`{"error": {"code": "…", "message": "…", "hint": "…", "requestId": "…"}}\`. Clients test \`code\`,
never the message. Messages of 5xx errors other than 502/503/504 are masked; quote the
\`requestId\` when reporting one.

| code | HTTP status | what to do |
|---|---:|---|
${rows.join('\n')}
`;
}
