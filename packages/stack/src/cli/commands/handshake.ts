/**
 * `pag handshake list --owner E`: the owner's pending handshakes, oldest first.
 * `pag handshake approve --owner E --id hs_… [--scopes "read"] [--daily N] [--monthly N]
 * [--expires YYYY-MM-DD]`: approves one with the requested scopes or fewer (never more), optional
 * limits and an expiry (through that day, UTC; default 90 days from now), as
 * /dashboard/handshakes does; the new token is the last line printed, once, unless the agent gave
 * a proof when asking: then it collects its token itself and nothing is printed to share.
 * `pag handshake deny --owner E --id hs_…`.
 * `pag handshake claim --owner E --code C`: makes an unassigned handshake the owner's (the code
 * is the one in the claim link the agent showed).
 * Each acts within the owner named by --owner: another owner's handshake is "not found".
 * Decisions go through the auth service's own store, so they publish events.auth.handshake.decided
 * on the running stack's bus as the dashboard's do (through the database, docs/adr/0033), and write
 * their audit events with the operator as actor (byOperator; docs/adr/0041).
 */
import type { HandshakeRecord } from '@pag/auth';
import { byOperator, endOfDay } from '@pag/auth';
import type { Command } from '../command.ts';
import { limitOption, requireString, scopesOption } from '../command.ts';
import { agentLine, ownerAccount } from './agent.ts';

function handshakeLine(record: HandshakeRecord): string {
  return [
    record.id,
    JSON.stringify(record.agentRef),
    `asks ${record.requestedScopes.join(' ')}`,
    `created ${record.createdAt.toISOString()}`,
    `message ${JSON.stringify(record.message)}`,
  ].join('  ');
}

const handshakeList: Command = {
  name: 'handshake list',
  usage: '--owner E',
  options: { owner: { type: 'string' } },
  async run(context) {
    await using store = await context.openAuth();
    const owner = await ownerAccount(store, context);
    const pending = await store.handshakes.pending(owner.id);
    if (pending.length === 0) {
      context.out(`no pending handshakes for ${owner.email}`);
      return;
    }
    for (const record of pending) context.out(handshakeLine(record));
  },
};

const handshakeApprove: Command = {
  name: 'handshake approve',
  usage: '--owner E --id hs_… [--scopes "s1 s2"] [--daily N] [--monthly N] [--expires YYYY-MM-DD]',
  options: {
    owner: { type: 'string' },
    id: { type: 'string' },
    scopes: { type: 'string' },
    daily: { type: 'string' },
    monthly: { type: 'string' },
    expires: { type: 'string' },
  },
  async run(context) {
    const id = requireString(context, 'id');
    const scopes = scopesOption(context);
    const dailyLimit = limitOption(context, 'daily');
    const monthlyLimit = limitOption(context, 'monthly');
    const expires = context.values.expires;
    // Through that day, UTC, as the dashboard reads its date field; absent: 90 days from now.
    const expiresAt = typeof expires === 'string' ? (endOfDay(expires, '--expires') ?? undefined) : undefined;
    await using store = await context.openAuth();
    const owner = await ownerAccount(store, context);
    const { handshake, agent, token } = await store.handshakes.approve(
      owner.id,
      id,
      {
        scopes,
        dailyLimit,
        monthlyLimit,
        expiresAt,
      },
      byOperator(),
    );
    context.out(`approved ${handshake.id} from ${JSON.stringify(handshake.agentRef)} for ${owner.email}:`);
    context.out(agentLine(agent));
    if (token === null) {
      context.out(
        'Nothing to share: the agent collects its token itself on its next status poll (it gave a proof).',
      );
      return;
    }
    context.out(
      'Give the agent this token; it is shown only this once. It sends it as "Authorization: Bearer <token>".',
    );
    context.out(token.value);
  },
};

const handshakeDeny: Command = {
  name: 'handshake deny',
  usage: '--owner E --id hs_…',
  options: { owner: { type: 'string' }, id: { type: 'string' } },
  async run(context) {
    const id = requireString(context, 'id');
    await using store = await context.openAuth();
    const owner = await ownerAccount(store, context);
    const handshake = await store.handshakes.deny(owner.id, id, byOperator());
    context.out(`denied ${handshake.id} from ${JSON.stringify(handshake.agentRef)} for ${owner.email}`);
  },
};

const handshakeClaim: Command = {
  name: 'handshake claim',
  usage: '--owner E --code C',
  options: { owner: { type: 'string' }, code: { type: 'string' } },
  async run(context) {
    const code = requireString(context, 'code');
    await using store = await context.openAuth();
    const owner = await ownerAccount(store, context);
    const handshake = await store.handshakes.claim(owner.id, code, byOperator());
    context.out(`claimed ${handshake.id} from ${JSON.stringify(handshake.agentRef)} for ${owner.email}`);
  },
};

export const handshakeCommands: Command[] = [handshakeList, handshakeApprove, handshakeDeny, handshakeClaim];
