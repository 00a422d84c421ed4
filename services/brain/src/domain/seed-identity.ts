/**
 * A fresh account's identity, from what the auth service knows of the owner: the email, and the
 * email's local part as the name (the only name an owner has given us so far). Everything else
 * stays unknown (null) until the owner says otherwise; nothing is guessed.
 */
import type { Identity, OwnerAccount } from '@pag/contracts';

export function identityFromAccount(account: Pick<OwnerAccount, 'email'>): Identity {
  const at = account.email.lastIndexOf('@');
  const localPart = at > 0 ? account.email.slice(0, at) : account.email;
  return { name: localPart, email: account.email, timezone: null, locale: null, summary: null };
}
