/**
 * `pag …` run in-process against a stack's DATA_DIR, as an operator next to the running stack
 * would, with what it printed: `out` (stdout lines), `err` (stderr lines), the exit code.
 */
import { runCli } from '../../src/cli/run-cli.ts';

export interface PagResult {
  code: number;
  out: string[];
  err: string[];
}

/**
 * `dataDir` is read at each call, so a test may restart its stack in another directory; `input`
 * is what the command reads on standard input.
 */
export function pagCommand(
  dataDir: () => string,
  input: () => string = () => '',
): (...argv: string[]) => Promise<PagResult> {
  return async (...argv) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(
      argv,
      { DATA_DIR: dataDir(), LOG_LEVEL: 'warn' },
      { out: (text) => out.push(text), err: (text) => err.push(text), input: async () => input() },
    );
    return { code, out, err };
  };
}
