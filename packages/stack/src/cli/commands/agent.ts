/**
 * `pag agent list --owner E [--json]`: every agent of one owner (OAuth apps, dashboard tokens,
 * handshakes, devices), newest first. An owner is named by email and sees only its own agents.
 * Usage figures live in the gateway; /dashboard/tokens shows them.
 */
import type { AuthStore } from '@pag/auth';
import type { Command, CommandContext } from '../command.ts';
import { CliError, requireString } from '../command.ts';

type Agent = Awaited<ReturnType<AuthStore['agents']['list']>>[number];

/** The account of `--owner E`; every agent command acts within it (the tenancy boundary). */
export async function ownerAccount(
  store: AuthStore,
  context: CommandContext,
): Promise<{ id: string; email: string }> {
  const email = requireString(context, 'owner');
  const account = await store.accounts.findByEmail(email);
  if (account === null) throw new CliError(`no owner with the email ${email}`);
  return account;
}

/** active, expired or revoked, as of now. */
export function agentStatus(agent: Agent, now = new Date()): string {
  if (agent.status === 'revoked') return 'revoked';
  return agent.expiresAt !== null && agent.expiresAt <= now ? 'expired' : 'active';
}

const limitText = (limit: number | null) => (limit === null ? 'none' : String(limit));

/** One line per agent: what `pag agent list` prints. */
export function agentLine(agent: Agent): string {
  return [
    agent.id,
    agent.kind,
    JSON.stringify(agent.name),
    agentStatus(agent),
    `scopes ${agent.scopes.join(' ')}`,
    `per day ${limitText(agent.dailyLimit)}`,
    `per month ${limitText(agent.monthlyLimit)}`,
    `created ${agent.createdAt.toISOString()}`,
    agent.status === 'revoked'
      ? `revoked ${agent.revokedAt?.toISOString() ?? ''}`.trim()
      : `expires ${agent.expiresAt?.toISOString() ?? 'never'}`,
  ].join('  ');
}

const agentList: Command = {
  name: 'agent list',
  usage: '--owner E [--json]',
  options: { owner: { type: 'string' }, json: { type: 'boolean' } },
  async run(context) {
    await using store = await context.openAuth();
    const owner = await ownerAccount(store, context);
    const agents = await store.agents.list(owner.id);
    if (context.values.json === true) {
      const now = new Date();
      const rows = agents.map((agent) => ({
        id: agent.id,
        clientId: agent.clientId,
        kind: agent.kind,
        name: agent.name,
        scopes: agent.scopes,
        dailyLimit: agent.dailyLimit,
        monthlyLimit: agent.monthlyLimit,
        status: agentStatus(agent, now),
        expiresAt: agent.expiresAt,
        createdAt: agent.createdAt,
        revokedAt: agent.revokedAt,
      }));
      context.out(JSON.stringify(rows, null, 2));
      return;
    }
    if (agents.length === 0) {
      context.out(`no agents for ${owner.email}`);
      return;
    }
    for (const agent of agents) context.out(agentLine(agent));
  },
};

export const agentCommands: Command[] = [agentList];
