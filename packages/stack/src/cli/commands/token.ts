/**
 * `pag token create --owner E --name N --scopes "s1 s2" [--daily N] [--monthly N] [--expires YYYY-MM-DD]`:
 * a dashboard token (an agent of kind `dashboard`), as /dashboard/tokens makes one; the token is
 * the last line printed, once (only its keyed hash is stored).
 * `pag token revoke --owner E --agent ID`: revokes one of that owner's agents, of any kind;
 * another owner's agent is "not found".
 * Both write their audit event (`token.create`, `token.revoke`) with the operator as actor
 * (byOperator; docs/adr/0041).
 */
import { byOperator, endOfDay } from '@pag/auth';
import type { Command } from '../command.ts';
import { limitOption, requireString, scopesOption } from '../command.ts';
import { agentLine, ownerAccount } from './agent.ts';

const tokenCreate: Command = {
  name: 'token create',
  usage: '--owner E --name N --scopes "s1 s2" [--daily N] [--monthly N] [--expires YYYY-MM-DD]',
  options: {
    owner: { type: 'string' },
    name: { type: 'string' },
    scopes: { type: 'string' },
    daily: { type: 'string' },
    monthly: { type: 'string' },
    expires: { type: 'string' },
  },
  async run(context) {
    const name = requireString(context, 'name');
    requireString(context, 'scopes');
    const scopes = scopesOption(context) ?? [];
    const dailyLimit = limitOption(context, 'daily');
    const monthlyLimit = limitOption(context, 'monthly');
    const expires = context.values.expires;
    // Through that day, UTC: the same reading as the dashboard's date field.
    const expiresAt = typeof expires === 'string' ? endOfDay(expires, '--expires') : null;
    await using store = await context.openAuth();
    const owner = await ownerAccount(store, context);
    const agent = await store.agents.createAgent(
      { accountId: owner.id, kind: 'dashboard', name, scopes, dailyLimit, monthlyLimit, expiresAt },
      byOperator(),
    );
    const token = await store.agents.issueToken(agent);
    context.out(`created a token for ${owner.email}:`);
    context.out(agentLine(agent));
    context.out('The token follows; it is shown only this once. Send it as "Authorization: Bearer <token>".');
    context.out(token.value);
  },
};

const tokenRevoke: Command = {
  name: 'token revoke',
  usage: '--owner E --agent ID',
  options: { owner: { type: 'string' }, agent: { type: 'string' } },
  async run(context) {
    const agentId = requireString(context, 'agent');
    await using store = await context.openAuth();
    const owner = await ownerAccount(store, context);
    const agent = await store.agents.revoke(owner.id, agentId, byOperator());
    context.out(
      `revoked ${agent.id} ${JSON.stringify(agent.name)} of ${owner.email}: its tokens no longer work.`,
    );
  },
};

export const tokenCommands: Command[] = [tokenCreate, tokenRevoke];
